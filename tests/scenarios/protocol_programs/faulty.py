"""A pipeline program that speaks docs/protocol.md, except in the one way its first argument names.

    python3 faulty.py MODE        MODE: one of FAULTS below, or ``good`` (keeps every rule)

Serves ``old`` and ``new`` (both echo the input's tools inside a body). Used by the fault tests
of the command pipeline and by ``harness protocol-check``'s failing-program tests.
"""

import json
import os
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "good"
FAULTS = ("no-hello", "old-protocol", "wrong-id", "dies-on-bad-json", "ignores-shutdown", "result-for-unknown",
          "never-reads", "closes-stdin", "closes-stdout", "json-logger", "banner", "huge-answer", "deep-answer",
          "exits", "slow-start", "hangs-at-eof", "leaks-keys", "small-inputs", "nan-output", "dies-after-hello")
# leaks-keys: its hello's name and every answer (under a wrong id) quote an OpenAI-style key and
# $DB_PASS, which it also says on stderr;
# small-inputs: an input line over 128 KiB gets an error answer (the adapter of issue 31);
# nan-output: the output holds NaN, which json.dumps writes and the harness refuses;
# dies-after-hello: exits with status 3 right after its hello, before reading any request (its
# standard input closed first, so the harness's write finds no reader rather than a full pipe)
assert MODE == "good" or MODE in FAULTS, MODE


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if MODE == "no-hello":
    print("starting up...", flush=True)
    time.sleep(3600)
if MODE == "slow-start":
    time.sleep(1)
if MODE in ("closes-stdin", "dies-after-hello"):  # before the hello, so no request can reach the pipe first
    os.close(0)
LEAK = "sk-proj-" + "A1b2C3d4" * 4 + " pass=" + os.environ.get("DB_PASS", "")
send({"type": "hello", "protocol": 0 if MODE == "old-protocol" else 1, "pipelines": ["new", "old"],
      "implementation": {"name": f"faulty-{MODE}" + (f" {LEAK}" if MODE == "leaks-keys" else ""), "version": "1",
                         "language": "python"}})
if MODE == "dies-after-hello":
    sys.exit(3)
if MODE == "never-reads":
    time.sleep(3600)
if MODE == "closes-stdin":
    time.sleep(3600)

for raw in sys.stdin:
    if MODE == "dies-on-bad-json":
        request = json.loads(raw)
    else:
        try:
            request = json.loads(raw)
        except ValueError as exc:
            send({"type": "error", "id": None, "error": {"type": "BadRequest", "message": str(exc)}})
            continue
    if request.get("type") == "shutdown":
        if MODE == "ignores-shutdown":
            time.sleep(3600)
        MODE = "shut down"
        break
    rid = request["id"]
    if request["pipeline"] not in ("old", "new") and MODE != "result-for-unknown":
        send({"type": "error", "id": rid, "error": {"type": "UnknownPipeline", "message": request["pipeline"]}})
        continue
    output = {"model": "m", "tools": request["input"].get("tools")}
    if MODE == "leaks-keys":
        sys.stderr.write(f"upstream said 401 for {LEAK}\n")
        sys.stderr.flush()
        send({"type": "error", "id": rid + 1, "error": {"type": "Upstream", "message": LEAK}})
        continue
    if MODE == "small-inputs" and len(raw) > 128 << 10:
        sys.stderr.write(f"refusing a {len(raw)}-byte request\n")
        sys.stderr.flush()
        send({"type": "error", "id": rid, "error": {"type": "TooLarge", "message": "input over 128 KiB"}})
        continue
    if MODE == "nan-output":
        output["score"] = float("nan")
    if MODE == "closes-stdout":
        os.close(1)
        time.sleep(3600)
    if MODE == "exits":
        sys.stderr.write("fatal: out of patience\n")
        sys.stderr.flush()
        os._exit(3)
    if MODE == "json-logger":
        send({"level": "info", "msg": "building a body"})
    if MODE == "banner":
        print("building a body...", flush=True)
    if MODE == "huge-answer":
        output = {"blob": "x" * int(request["input"].get("size", 0))}
    if MODE == "deep-answer":
        deep = "[" * 200000 + "]" * 200000
        sys.stdout.write(f'{{"type": "result", "id": {rid}, "output": {deep}}}\n')
        sys.stdout.flush()
        continue
    send({"type": "result", "id": rid + 1 if MODE == "wrong-id" else rid, "output": output})
if MODE == "hangs-at-eof":  # stdin ended without a shutdown
    time.sleep(3600)
