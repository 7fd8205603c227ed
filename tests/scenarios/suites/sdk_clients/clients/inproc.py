"""Client sides run in the harness's process: the same SDK calls as anthropic_client.py and
openai_client.py, on the MockTransport the harness hands in (``transport: httpx2``).

Each returns what the client made of the answer; a recorded rejection raises the SDK's own error.
Each imports its own SDK when called: importing anthropic costs about two CPU seconds, which a
test of the openai client alone (or of ``plain_send``) should not pay."""

import httpx2


def anthropic_send(job, lane, transport):
    import anthropic

    client = anthropic.Anthropic(api_key="sk-ant-test-0000-not-a-real-key", max_retries=0,
                                 http_client=httpx2.Client(transport=transport))
    client.messages.create(model=lane["model"], max_tokens=1024, tools=_anthropic_tools(job),
                           messages=[{"role": "user", "content": "Use a tool."}])
    return "answered 200"


def openai_send(job, lane, transport):
    import openai

    client = openai.OpenAI(api_key="sk-proj-test-0000-not-a-real-key", max_retries=0,
                           http_client=httpx2.Client(transport=transport))
    tools = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                               "parameters": t.get("input_schema", {"type": "object"})}}
             for t in job["tools"]]
    client.chat.completions.create(model=lane["model"], tools=tools,
                                   messages=[{"role": "user", "content": "Use a tool."}])
    return "answered 200"


class Rejected(Exception):
    """What ``plain_send`` raises on a 4xx or 5xx, as an SDK raises its status error."""


def plain_send(job, lane, transport):
    """The Anthropic Messages call anthropic_send makes, written on httpx2 alone (no SDK): an
    error answer raises with the provider's message, as the SDK's error path does."""
    with httpx2.Client(transport=transport, base_url="https://api.anthropic.com") as client:
        answer = client.post("/v1/messages", json={
            "model": lane["model"], "max_tokens": 1024, "tools": _anthropic_tools(job),
            "messages": [{"role": "user", "content": "Use a tool."}]},
            headers={"x-api-key": "sk-ant-test-0000-not-a-real-key", "anthropic-version": "2023-06-01"})
    if answer.status_code >= 400:
        raise Rejected(f"Error code: {answer.status_code} - {answer.json()['error']['message']}")
    return "answered 200"


def _anthropic_tools(job):
    return [{"name": t["name"], **({"description": t["description"]} if "description" in t else {}),
             "input_schema": t.get("input_schema", {"type": "object"})} for t in job["tools"]]


def plain_openai_send(job, lane, transport):
    """The Chat Completions call openai_send makes, written on httpx2 alone (no SDK: importing
    openai costs about a CPU second): an error answer raises with the provider's message."""
    tools = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                               "parameters": t.get("input_schema", {"type": "object"})}}
             for t in job["tools"]]
    with httpx2.Client(transport=transport, base_url="https://api.openai.com") as client:
        answer = client.post("/v1/chat/completions", json={
            "model": lane["model"], "tools": tools, "messages": [{"role": "user", "content": "Use a tool."}]},
            headers={"Authorization": "Bearer sk-proj-test-0000-not-a-real-key"})
    if answer.status_code >= 400:
        raise Rejected(f"Error code: {answer.status_code} - {answer.json()['error']['message']}")
    return "answered 200"
