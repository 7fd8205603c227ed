"""Run a pipeline program and copy its protocol traffic, both ways, to a log file.

    python3 tap.py LOG CMD...

Each line that passes is appended to LOG as ``{"from": "harness"|"program", "line": ...}``, so a
test can check the real traffic of a real run against the protocol's schemas.
"""

import json
import subprocess
import sys
import threading

log_path, argv = sys.argv[1], sys.argv[2:]
child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
lock = threading.Lock()
log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 - open for the whole run


def record(side, raw):
    with lock:
        log.write(json.dumps({"from": side, "line": raw.decode("utf-8", "replace").rstrip("\n")}) + "\n")
        log.flush()


def answers():
    for raw in child.stdout:
        record("program", raw)
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()


reader = threading.Thread(target=answers)
reader.start()
for raw in sys.stdin.buffer:
    record("harness", raw)
    child.stdin.write(raw)
    child.stdin.flush()
child.stdin.close()
reader.join()
sys.exit(child.wait())
