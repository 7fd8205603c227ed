"""Pipelines for the failing-pins scenario: the new one shouts on the loud lane and misbehaves on
request (input key ``behaviour``)."""

import ctypes
import itertools
import time

_calls = itertools.count()


def old(inp, lane):
    return {"model": "m", "tools": [dict(t) for t in inp["tools"]]}


def new(inp, lane):
    behaviour = inp.get("behaviour")
    if behaviour == "raise":
        raise ValueError("the pipeline refused this input")
    if behaviour == "segfault":
        ctypes.string_at(0)
    if behaviour == "hang":
        while True:
            time.sleep(0.01)
    tools = [dict(t) for t in inp["tools"]]
    if lane["provider"] == "loud":
        for t in tools:
            t["name"] = t["name"].upper()
    out = {"model": "m", "tools": tools}
    if behaviour == "random":
        out["nonce"] = f"{time.perf_counter_ns()}-{next(_calls)}"
    if behaviour == "grows":
        out["tools"].append({"name": "extra"})
    if behaviour == "secret":
        out["note"] = "key sk-ant-api03-" + "A" * 40
    return out


def refeed(inp, out):
    return {**inp, "tools": out["tools"]}
