from harness.adapter.serve import serve


def body(inp, lane):
    return {"tools": [{"name": t["name"], "strict": True} for t in inp["tools"]]}


serve(body=body)
