"""A pipeline program written against docs/protocol.md directly (no adapter), serving ``old``
and ``new``; the input key ``behaviour`` makes ``new`` misbehave the ways a real program can.
Each call is appended to the file named by $TOY_CALLS, when set, so tests can count calls."""

import json
import os
import sys
import time

print("a banner a library printed at import")  # a stray line before the hello
sys.stdout.write(json.dumps({"type": "hello", "protocol": 1, "pipelines": ["old", "new"],
                             "implementation": {"name": "served", "version": "1", "language": "python"}}) + "\n")
sys.stdout.flush()


def body(inp, lane, upper):
    tools = [dict(t) for t in inp["tools"]]
    if upper and lane["provider"] == "fancy":
        for t in tools:
            t["name"] = t["name"].upper()
    return {"model": "m", "tools": tools}


for raw in sys.stdin:
    req = json.loads(raw)
    if req.get("type") == "shutdown":
        break
    if os.environ.get("TOY_CALLS"):
        with open(os.environ["TOY_CALLS"], "a") as log:
            log.write(f"{req['pipeline']} {req['lane']['id']}\n")
    behaviour = req["input"].get("behaviour") if req["pipeline"] == "new" else None
    answer = {"type": "result", "id": req["id"], "output": body(req["input"], req["lane"], req["pipeline"] == "new")}
    if behaviour == "raise":
        answer = {"type": "error", "id": req["id"],
                  "error": {"type": "ValueError", "message": "the pipeline refused this input", "where": "served.py"}}
    elif behaviour == "stray":
        print("a progress line on stdout, mid-request")
    elif behaviour == "hang":
        time.sleep(60)
    elif behaviour == "exit":
        sys.stderr.write("fatal: gave up\n")
        sys.stderr.flush()
        os._exit(3)
    elif behaviour == "malformed":
        sys.stdout.write("{not json\n")
        sys.stdout.flush()
        continue
    elif behaviour == "wrong-id":
        answer["id"] = req["id"] + 100
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
