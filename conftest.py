"""Root conftest: registers the harness's pytest plugin, so plain ``pytest`` here runs the
harness's own tests (tests/) and every pin of the bundled suite (cases/)."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["harness.pins.plugin"]


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: a plain install (no xdist) runs pins here too
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """What ``-n auto`` starts: a worker per core. Four workers on two cores finished the
    README's command sooner (50 s against 66 s idle, 79 s against 99 s at load 4 to 5), since
    some tests wait out deadlines, but cost 14 to 17 CPU seconds more (83 against 69; 89.5
    against 72 at load 4): each worker collects the whole tree, and four on two cores slow each
    other. The command's budget is CPU seconds (tests/README.md, "Measured").
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` overrides this: this hook answers first, so it steps aside
    (None) for xdist's own, which reads the variable."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
