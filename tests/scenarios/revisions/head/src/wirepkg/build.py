def body(inp, lane):
    return {"tools": [{"name": t["name"], "strict": True} for t in inp["tools"]]}
