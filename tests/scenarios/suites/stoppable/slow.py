"""Pipelines that take their time and leave a process behind that nothing but the harness's
watchdog can find: ``sleep`` in a session of its own, started once per process."""

import subprocess
import time

_started = []


def _runaway():
    if not _started:
        _started.append(subprocess.Popen(["sleep", "300"], start_new_session=True))


def old_body(inp, lane):
    _runaway()
    time.sleep(0.3)
    return {"model": lane["model"], "tools": inp["tools"]}


def new_body(inp, lane):
    _runaway()
    time.sleep(0.3)
    return {"model": str(lane["model"]), "tools": inp["tools"]}
