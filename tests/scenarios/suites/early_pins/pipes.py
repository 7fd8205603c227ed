"""Old and new send the same body."""


def old(inp, lane):
    return {"model": "m", "tools": inp["tools"]}


new = old
