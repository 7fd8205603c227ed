"""Toy pipelines for the harness's own tests: the new one uppercases names on the fancy lane,
and misbehaves on request (input key ``behaviour``)."""

import ctypes
import os
import time


def _misbehave(behaviour):
    if behaviour == "raise":
        raise ValueError("the pipeline refused this input")
    if behaviour == "hang":
        while True:
            pass
    if behaviour == "sleep-in-c":
        time.sleep(30)
    if behaviour == "exit":
        os._exit(3)
    if behaviour == "segfault":
        ctypes.string_at(0)
    if behaviour == "spawn":
        import subprocess

        child = subprocess.Popen(["sleep", "37.25"])  # left running on purpose
        pid_file = os.environ.get("TOY_PID_FILE")
        if pid_file:
            with open(pid_file, "w") as out:
                out.write(str(child.pid))
        return None
    if behaviour == "not-json":
        return {"tools": {1, 2}}
    return None


def old(inp, lane):
    return {"model": "m", "tools": [dict(t) for t in inp["tools"]]}


def new(inp, lane):
    bad = _misbehave(inp.get("behaviour"))
    if bad is not None:
        return bad
    tools = [dict(t) for t in inp["tools"]]
    if lane["provider"] == "fancy":
        for t in tools:
            t["name"] = t["name"].upper()
    return {"model": "m", "tools": tools}


def refeed(inp, out):
    return {**inp, "tools": out["tools"]}
