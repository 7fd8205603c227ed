"""Pipelines that change their input in place, for the build stage's input isolation tests.

``old`` changes it on every call; ``new`` only on the lane ``third``, after a first call that
left it alone. Kept apart, both answer the tool names with a ``!`` on every lane; a call that
saw what an earlier call did answers something else."""

SEEN = []  # what ``calm`` was given, call by call (read by the tests, in-process builds only)


def old(inp, lane):
    for tool in inp["tools"]:
        tool["name"] += "!"
    return {"names": [t["name"] for t in inp["tools"]]}


def new(inp, lane):
    out = {"names": [t["name"] + "!" for t in inp["tools"]]}
    if lane["id"] == "third":
        inp["tools"].append({"name": "intruder"})
    return out


def calm(inp, lane):
    SEEN.append(inp)
    return {"names": [t["name"] for t in inp["tools"]]}
