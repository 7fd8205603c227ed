"""Pipelines for a side whose interpreter is a virtual environment's bin/python: both import
``venv_only_shaping``, which only that environment's site-packages holds."""

import sys


def old(inp, lane):
    import venv_only_shaping  # noqa: F401 - fails outside the venv, which is the point

    return {"model": "m", "tools": inp["tools"], "prefix_is_venv": sys.prefix != sys.base_prefix}


def new(inp, lane):
    from venv_only_shaping import SHAPED_BY

    return {**old(inp, lane), "shaped_by": SHAPED_BY}
