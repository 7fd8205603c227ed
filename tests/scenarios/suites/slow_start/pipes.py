def body(inp, lane):
    return {"tools": inp["tools"]}
