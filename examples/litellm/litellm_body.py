"""The entry point for LiteLLM as old and new: the request body a released LiteLLM version builds
for a case's tools on a lane, offline (``return_raw_request``; no request is sent).

LiteLLM prints banners on stdout when imported: the harness's adapter moves stdout to stderr
before importing this module, so they never reach the protocol.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no download of the cost map

from litellm.utils import CallTypes, return_raw_request  # noqa: E402 - after the environment is set


def build_body(pipeline_input, lane):
    strict = bool((lane.get("options") or {}).get("strict"))
    tools = [{"type": "function", "function": {
        "name": t["name"], "description": t.get("description", ""),
        "parameters": t.get("input_schema", {"type": "object"}), **({"strict": True} if strict else {})}}
        for t in pipeline_input["tools"]]
    raw = return_raw_request(CallTypes.completion, {
        "model": lane["model"], "messages": [{"role": "user", "content": "Use a tool."}], "tools": tools})
    return raw["raw_request_body"]
