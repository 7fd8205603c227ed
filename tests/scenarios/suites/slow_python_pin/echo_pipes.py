def old(inp, lane):
    return {"tools": inp["tools"]}


def new(inp, lane):
    return {"tools": inp["tools"]}
