"""Client sides run in the harness's process: the same SDK calls as anthropic_client.py and
openai_client.py, on the MockTransport the harness hands in (``transport: httpx2``).

Each returns what the client made of the answer; a recorded rejection raises the SDK's own error."""

import anthropic
import httpx2
import openai


def anthropic_send(job, lane, transport):
    client = anthropic.Anthropic(api_key="sk-ant-test-0000-not-a-real-key", max_retries=0,
                                 http_client=httpx2.Client(transport=transport))
    tools = [{"name": t["name"], **({"description": t["description"]} if "description" in t else {}),
              "input_schema": t.get("input_schema", {"type": "object"})} for t in job["tools"]]
    client.messages.create(model=lane["model"], max_tokens=1024, tools=tools,
                           messages=[{"role": "user", "content": "Use a tool."}])
    return "answered 200"


def openai_send(job, lane, transport):
    client = openai.OpenAI(api_key="sk-proj-test-0000-not-a-real-key", max_retries=0,
                           http_client=httpx2.Client(transport=transport))
    tools = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                               "parameters": t.get("input_schema", {"type": "object"})}}
             for t in job["tools"]]
    client.chat.completions.create(model=lane["model"], tools=tools,
                                   messages=[{"role": "user", "content": "Use a tool."}])
    return "answered 200"
