"""Plain Python pipelines run by another interpreter through harness/adapter/serve.py."""

import sys


def old(inp, lane):
    print("old prints on stdout; the adapter moves it to stderr")
    return {"model": "m", "tools": inp["tools"], "python": sys.version_info[0]}


def new(inp, lane):
    from shaping import shape  # from lib/, on this side's path

    return shape(old(inp, lane), lane)
