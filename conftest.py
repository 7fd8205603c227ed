"""Root conftest: registers the harness's pytest plugin, so plain ``pytest`` here runs the
harness's own tests (tests/) and every pin of the bundled suite (cases/)."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["harness.pins.plugin"]


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: a plain install (no xdist) runs pins here too
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """What ``-n auto`` starts: a worker per core and up to four more. Much of this suite waits
    rather than computes (a program that never answers until its deadline, a run stopped
    mid-build, a child given time to exit), so idle cores are the cost of one worker a core
    (tests/README.md, "Measured"). ``PYTEST_XDIST_AUTO_NUM_WORKERS`` overrides this: this hook
    answers first, so it steps aside (None) for xdist's own, which reads the variable."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + min(cores, 4)
