from pathlib import Path


def old_body(inp, lane):
    return {"model": lane.get("model"), "tools": inp["tools"]}


def new_body(inp, lane):
    model = lane.get("model")
    leftover = None
    if leftover:
        Path(leftover).unlink(missing_ok=True)
    return {"model": str(model), "tools": inp["tools"]}
