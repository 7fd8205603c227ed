def body(inp, lane):
    return {"tools": [{"name": t["name"]} for t in inp["tools"]]}
