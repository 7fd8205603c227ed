"""Pins that call a pipeline again (deterministic, idempotent) are checked in a fork of the
harness; their calls are made in that fork, not each in a fork of its own, yet every such pin
reports what the pytest plugin reports with each call isolated: a call that crashes the fork,
hangs or times out has the pin checked again that way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness._differential import build
from harness._load import load_suite
from harness._model import Suite
from harness._pins import cache
from harness._pins.document import choose
from harness._pins.inproc import Forked, ItemResult, _pin, item_timeout, playing, start_check

pytestmark = pytest.mark.slow

PIPES = '''import os
import signal
import time


def old(inp, lane):
    return {"model": "m", "tools": inp["tools"]}


def new(inp, lane):
    mode = os.environ.get("FORKED_CHECKS_MODE", "")
    if mode == "record":
        with open(os.environ["FORKED_CHECKS_RECORD"], "a") as out:
            out.write(f"{os.getpid()} {os.getppid()}\\n")
    if mode == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode == "hang":
        while True:
            time.sleep(0.01)
    return {"model": "m", "tools": inp["tools"]}
'''


@pytest.fixture
def suite(tmp_path: Path) -> Suite:
    root = tmp_path / "forked_checks"
    root.mkdir()
    (root / "pipes.py").write_text(PIPES)
    (root / "suite.yaml").write_text("version: 1\nname: forked_checks\ntimeout_s: 0.5\nsubjects:\n"
                                     "  s:\n    old: pipes:old\n    new: pipes:new\n    wires: [w]\n")
    (root / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: one, wire: w, provider: p}\n")
    (root / "c.cases.yaml").write_text("version: 1\nsubject: s\ncases:\n  - id: c0\n    tools: [{name: a}]\n"
                                       "    pins:\n      - {name: same_twice, kind: deterministic}\n")
    return load_suite(root)


def checked(suite: Suite, monkeypatch: pytest.MonkeyPatch, mode: str) -> tuple[ItemResult, ItemResult]:
    """The pin as the stage checks it, and as the plugin does (every call forked), in ``mode``."""
    [res] = build(suite, workers=0)
    assert res.old is not None and res.new is not None
    saved = {(o.case_id, o.lane_id, o.side): o for o in (res.old, res.new)}
    [item] = [i for i in choose(suite, None, None, None).items if i.pin is not None]
    monkeypatch.setenv("FORKED_CHECKS_MODE", mode)
    with playing("new"):
        cache.use_saved(saved)
        here = start_check(suite, item, item_timeout(suite)).result()
        cache.use_saved(saved)
        isolated = Forked(item, lambda: _pin(suite, item), item_timeout(suite)).result()
    return here, isolated


def test_a_forked_pins_calls_are_made_in_its_fork(suite: Suite, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "calls.txt"
    monkeypatch.setenv("FORKED_CHECKS_RECORD", str(record))
    here, isolated = checked(suite, monkeypatch, "record")
    assert here == isolated and here.outcome == "passed"
    calls = [tuple(map(int, line.split())) for line in record.read_text().splitlines()]
    assert len(calls) == 4  # two calls the stage's way, two the plugin's
    pin_fork = calls[0][0]
    assert calls[0] == calls[1] and calls[0][1] == os.getpid()  # both in one fork of this process
    assert calls[2][1] != os.getpid() and calls[2][1] == calls[3][1]  # the plugin's way: forked again
    assert pin_fork not in (calls[2][0], calls[3][0])


@pytest.mark.parametrize("mode", ["crash", "hang"])
def test_a_call_that_ends_badly_reads_as_it_does_with_each_call_forked(suite: Suite, mode: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    here, isolated = checked(suite, monkeypatch, mode)
    assert here == isolated
    assert here.outcome == "failed" and ("crash" if mode == "crash" else "timeout") in here.message
