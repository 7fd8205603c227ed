"""A client side: the official anthropic SDK sends the case's tools to ANTHROPIC_BASE_URL.

Reads {"input", "lane", "base_url"} from stdin; prints what the server answered on stdout."""

import json
import sys

import anthropic

job = json.loads(sys.stdin.readline())
client = anthropic.Anthropic(api_key="sk-ant-test-0000-not-a-real-key", max_retries=0)
tools = [{"name": t["name"], **({"description": t["description"]} if "description" in t else {}),
          "input_schema": t.get("input_schema", {"type": "object"})} for t in job["input"]["tools"]]
try:
    client.messages.create(model=job["lane"]["model"], max_tokens=1024, tools=tools,
                           messages=[{"role": "user", "content": "Use a tool."}])
    print("answered 200")
except anthropic.APIStatusError as exc:
    print(f"answered {exc.status_code}: {exc.message}")
    sys.exit(1)
