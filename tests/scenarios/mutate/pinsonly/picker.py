"""Which tool a request names, and the tool list a request ships (a pins-only review's module)."""


def pick(tools, name):
    """The first tool called ``name`` (a later one with the same name is a duplicate)."""
    for tool in tools:
        if tool["name"] == name:
            return tool
    return None


def names(tools):
    """The tool names in order, without duplicates."""
    seen = []
    for tool in tools:
        if tool["name"] not in seen:
            seen.append(tool["name"])
    return seen


def unused(tools):
    """No pin calls this."""
    return [t for t in tools if not t.get("used")]
