"""Old sends the tools; new adds what the case's behaviour asks for."""

import itertools

_calls = itertools.count()


def old(inp, lane):
    return {"model": "m", "tools": inp["tools"]}


def new(inp, lane):
    body = {"model": "m", "tools": inp["tools"]}
    if inp.get("behaviour") == "note":
        body["note"] = "added"
    if inp.get("behaviour") == "stray":
        body["stray"] = True
    if inp.get("behaviour") == "counter":
        body["tools"] = [*inp["tools"], {"name": f"call-{next(_calls)}"}]
    return body
