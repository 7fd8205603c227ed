"""Pipelines that leak the credential in LEAKY_API_KEY: in an error, and in their output."""

import os


def old(inp, lane):
    return {"metadata": {"user_id": "anonymous"}}


def new(inp, lane):
    key = os.environ.get("LEAKY_API_KEY", "")
    if inp.get("behaviour") == "raise":
        raise RuntimeError(f"401 from upstream; request headers={{'x-api-key': '{key}'}}")
    return {"metadata": {"user_id": key}}
