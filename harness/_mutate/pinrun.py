"""Run one collected pytest item and say only how it ended: passed, failed or skipped.

``runtestprotocol`` builds a TestReport three times per item (``pytest_runtest_makereport``);
that is five sixths of a small pin's cost, and only the outcome crosses the pipe. So the
setup/call/teardown hooks are called directly (every plugin's hook wrappers still run: fixtures,
skipif, capture, unraisable-exception checks), and the outcome is read off the exceptions.
Items marked ``xfail`` need the report's xfail bookkeeping, so they take the full protocol.
"""

from __future__ import annotations

from typing import Any

from _pytest.outcomes import Skipped
from _pytest.runner import CallInfo, get_reraise_exceptions, runtestprotocol

__all__ = ["run_item"]


def _hook(item: Any, when: str, **kwargs: Any) -> CallInfo[None]:
    hook = getattr(item.ihook, f"pytest_runtest_{when}")
    return CallInfo.from_call(lambda: hook(item=item, **kwargs), when=when,  # type: ignore[arg-type]
                              reraise=get_reraise_exceptions(item.config))


def _full(item: Any, nextitem: Any) -> str:
    reports = runtestprotocol(item, nextitem=nextitem, log=False)
    if any(r.failed for r in reports):
        return "failed"
    return "skipped" if any(r.skipped for r in reports) else "passed"


def _ended(info: CallInfo[None]) -> str | None:
    """How a phase that raised ended the item (skipped, failed); None when it did not raise."""
    if info.excinfo is None:
        return None
    return "skipped" if info.excinfo.errisinstance(Skipped) else "failed"


def run_item(item: Any, nextitem: Any) -> str:
    """"passed", "failed" or "skipped" for ``item``, leaving fixtures set up for ``nextitem``."""
    if item.get_closest_marker("xfail") is not None:
        return _full(item, nextitem)
    # the call only when the setup passed; a teardown that fails (not skips) fails the item
    outcome = _ended(_hook(item, "setup")) or _ended(_hook(item, "call")) or "passed"
    return "failed" if _ended(_hook(item, "teardown", nextitem=nextitem)) == "failed" else outcome
