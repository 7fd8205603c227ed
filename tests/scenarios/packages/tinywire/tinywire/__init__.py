"""tinywire: a stand-in for a released gateway library, built as a wheel per version by the tests
(tests/wheelhouse.py writes _version.py). Like LiteLLM it prints a banner on stdout when imported.

    1.0.0  ships input_schema verbatim (a root oneOf reaches Anthropic)
    2.0.0  flattens a root oneOf, but puts a dot in the name of tools described "namespaced"
           (outside Anthropic's name pattern)
    3.0.0  as 2.0.0, with max_tokens raised from 1024 to 4096 on every body
"""

from tinywire._version import VERSION

print(f"tinywire {VERSION}: the banner a library prints on import")  # stdout: must not reach the protocol

MAJOR = int(VERSION.split(".")[0])


def _schema(schema):
    if MAJOR >= 2 and "oneOf" in schema:
        flat = {k: v for k, v in schema.items() if k != "oneOf"}
        flat.pop("required", None)
        return flat
    return schema


def build_body(tools, lane):
    return {
        "model": lane.get("model") or "claude",
        "max_tokens": 4096 if MAJOR >= 3 else 1024,
        "tools": [{"name": (f"ns.{t['name']}" if MAJOR >= 2 and t.get("description") == "namespaced" else t["name"]),
                   "input_schema": _schema(t.get("input_schema", {"type": "object"}))} for t in tools],
    }
