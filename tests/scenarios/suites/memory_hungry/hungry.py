"""``new`` holds ``megabytes`` of memory while it builds the body; ``old`` holds none."""


def old_body(inp, lane):
    return {"tools": inp["tools"]}


def new_body(inp, lane):
    held = bytearray(inp["megabytes"] << 20)
    return {"tools": inp["tools"], "held": len(held) >> 20}
