"""A pytest plugin for ``bench/test_tier.py``: the CPU seconds of each test, its own process's and
those of every child it waited for, written as JSON lines ``[cpu_s, nodeid]`` to
``$TIER_CPU_OUT.<pid>`` (one file a worker) when the session ends."""

from __future__ import annotations

import json
import os
import resource
from collections.abc import Iterator

import pytest

__all__ = ["pytest_runtest_protocol", "pytest_sessionfinish"]

_rows: list[tuple[float, str]] = []


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    start = _cpu()
    try:
        return (yield)
    finally:
        _rows.append((_cpu() - start, item.nodeid))


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("TIER_CPU_OUT")
    if not out:
        return
    with open(f"{out}.{os.getpid()}", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(row) + "\n" for row in _rows)
