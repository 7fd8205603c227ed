"""A client side without an SDK: the Chat Completions call openai_client.py makes, sent with the
standard library alone to OPENAI_BASE_URL (a cheap stand-in for the SDK: importing openai costs
about a CPU second). Reads {"input", "lane", "base_url"} from stdin; prints the answer's status."""

import json
import os
import sys
import urllib.error
import urllib.request

job = json.loads(sys.stdin.readline())
tools = [{"type": "function", "function": {"name": t["name"], "description": t.get("description", ""),
                                           "parameters": t.get("input_schema", {"type": "object"})}}
         for t in job["input"]["tools"]]
body = {"model": job["lane"]["model"], "tools": tools, "messages": [{"role": "user", "content": "Use a tool."}]}
request = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer sk-proj-test-0000-not-a-real-key",
                                          "Content-Type": "application/json", "User-Agent": "plain-client/1"})
try:
    with urllib.request.urlopen(request, timeout=60) as answer:
        print(f"answered {answer.status}")
except urllib.error.HTTPError as exc:
    print(f"answered {exc.code}: {json.loads(exc.read())['error']['message']}")
    sys.exit(1)
