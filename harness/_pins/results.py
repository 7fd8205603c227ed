"""One line of a pins results file (``--harness-results``) for a pytest report: what the
plugin writes for ``harness run`` and the Python pins' pytest streams to the run's pins.jsonl.

Imported by pytest processes only (the plugin, the gate); pytest's types are named for the
type checker alone, so this module itself imports no pytest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness._common.redact import redactor

if TYPE_CHECKING:
    import pytest

__all__ = ["result_line"]


def result_line(report: pytest.TestReport) -> dict[str, Any] | None:
    """The results file's line for ``report``: every call, and a setup or teardown that did not
    pass; None for the rest. A catches_old pin against old keeps what the pin itself did."""
    if report.when != "call" and not (report.failed or report.skipped):
        return None
    props = dict(report.user_properties)
    message = str(props["harness_message"]) if "harness_message" in props else _message(report)
    return {"nodeid": report.nodeid, "when": report.when, "outcome": props.get("harness_outcome", report.outcome),
            "message": redactor().text(message[:2000]),  # a pin's message can quote pipeline output
            "duration_s": round(report.duration, 6)}


def _message(report: pytest.TestReport) -> str:
    """pytest's own words for a report: a failure's crash message (the whole assertion
    explanation: its last line alone was "Use -v to get more diff" for a list compare), else the
    report's last line; a skip's reason; else nothing."""
    if report.failed:
        crash: Any = getattr(report.longrepr, "reprcrash", None)
        if crash is not None and crash.message:
            return str(crash.message)
        return report.longreprtext.strip().splitlines()[-1] if report.longreprtext else "failed"
    return str(report.longrepr[2]) if report.skipped and isinstance(report.longrepr, tuple) else ""
