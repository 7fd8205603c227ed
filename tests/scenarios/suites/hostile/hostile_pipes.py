"""Pipelines whose outcomes are hostile to the report: deep output, strings no file format
takes as they are (lone surrogates, terminal escapes, XML-illegal characters)."""


def old(inp, lane):
    return {"tools": [dict(t) for t in inp["tools"]]}


def _deep(depth):
    value = "bottom"
    for _ in range(depth):
        value = {"down": value}
    return value


def new(inp, lane):
    behaviour = inp.get("behaviour")
    if behaviour == "deep":
        return {"tools": [dict(t) for t in inp["tools"]], "deep": _deep(500)}
    if behaviour == "surrogate":
        raise ValueError("upstream said \ud83d and stopped")
    if behaviour == "escapes":
        raise ValueError("screen \x1b[2J\x1b[H cleared \x07 bell \x00 nul \x0b vt")
    return old(inp, lane)
