def body(inp, lane):
    return {"provider": lane["provider"], "tools": [{"name": t["name"]} for t in inp["tools"]]}
