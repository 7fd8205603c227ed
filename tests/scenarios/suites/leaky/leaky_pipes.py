"""Pipelines that leak the credential in LEAKY_API_KEY: in an error, in their output, and in
what they print on stdout and stderr."""

import os
import sys


def old(inp, lane):
    return {"metadata": {"user_id": "anonymous"}}


def new(inp, lane):
    key = os.environ.get("LEAKY_API_KEY", "")
    print(f"debug: calling upstream with key {key}")  # a pipeline that logs its credential
    print(f"warning: key {key} is close to its quota", file=sys.stderr)
    if inp.get("behaviour") == "raise":
        raise RuntimeError(f"401 from upstream; request headers={{'x-api-key': '{key}'}}")
    return {"metadata": {"user_id": key}}
