"""A client side: the official openai SDK sends the case's tools as Chat Completions functions
to OPENAI_BASE_URL. Reads {"input", "lane", "base_url"} from stdin; prints the answer's status."""

import json
import sys

import openai

job = json.loads(sys.stdin.readline())
client = openai.OpenAI(api_key="sk-proj-test-0000-not-a-real-key", max_retries=0)
tools = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                           "parameters": t.get("input_schema", {"type": "object"})}}
         for t in job["input"]["tools"]]
try:
    client.chat.completions.create(model=job["lane"]["model"], tools=tools,
                                   messages=[{"role": "user", "content": "Use a tool."}])
    print("answered 200")
except openai.APIStatusError as exc:
    print(f"answered {exc.status_code}: {exc.message}")
    sys.exit(1)
