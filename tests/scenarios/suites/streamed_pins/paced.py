"""Pipelines that take a while per call when PACED_PIPES_DELAY says so (seconds), else none."""

import os
import time


def _pace():
    time.sleep(float(os.environ.get("PACED_PIPES_DELAY", "0")))


def old(inp, lane):
    _pace()
    return {"model": lane["model"], "tools": inp["tools"]}


def new(inp, lane):
    _pace()
    return {"model": lane["model"], "tools": inp["tools"], "lane": lane["id"]}
