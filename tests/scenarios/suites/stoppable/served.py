"""A slow pipeline program speaking the protocol (standard library only)."""

import json
import sys
import time

sys.stdout.write(json.dumps({"type": "hello", "protocol": 1, "pipelines": ["old", "new"],
                             "implementation": {"name": "stoppable", "version": "1", "language": "python"}}) + "\n")
sys.stdout.flush()
for raw in sys.stdin:
    req = json.loads(raw)
    if req.get("type") == "shutdown":
        break
    # its units come first: the slow in-process ones (0.3 s a call) still run when a test stops the run
    time.sleep(0.1)
    sys.stdout.write(json.dumps({"type": "result", "id": req["id"], "output": {"tools": req["input"]["tools"]}}) + "\n")
    sys.stdout.flush()
