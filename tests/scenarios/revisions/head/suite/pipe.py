def body(inp, lane):
    return {"provider": lane["provider"], "tools": [{"name": t["name"], "strict": True} for t in inp["tools"]]}
