"""A pytest plugin: replay recorded rejections in your own tests, offline.

    # conftest.py
    pytest_plugins = ["harness.reject.pytest_plugin"]

    @pytest.mark.rejections(fronts=["anthropic"])
    def test_my_client_body_is_not_a_known_rejection(rejection_replay):
        result = rejection_replay(build_my_body())
        assert result.status == "unknown", result.rules

``rejection_replay(body, fronts=None, lane=None)`` checks the body against the rules of the
validators the lane fronts, replays the recorded response when one fires (status "rejected")
and never sends anything (status "unknown" otherwise). The suite is ``--rejections-suite``
(default ``cases``); a suite with no rules is refused, since every body would pass.
pytest-recording compatibility: its ``--record-mode`` is honoured when
present (only ``none`` makes sense for recorded rejections; anything else is refused with a
pointer to ``harness probe``), and the network stays blocked during a replay either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from harness._model import Lane
from harness._reject.cassettes import suite_settings
from harness._reject.replay import Replayed, replay
from harness._reject.verdicts import cached_catalog

__all__ = ["pytest_addoption", "pytest_configure", "rejection_replay"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rejections", "recorded provider rejections (wire-harness)")
    group.addoption("--rejections-suite", default="cases",
                    help="suite folder whose rules and cassettes rejection_replay uses (default: cases)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "rejections(fronts=[...], lane=id): the validators rejection_replay checks against")


def _settings(suite: Path) -> tuple[str, str | None, tuple[str, ...]]:
    settings = suite_settings(suite)
    return str(suite.resolve()), settings.cassettes, settings.rules


@pytest.fixture
def rejection_replay(request: pytest.FixtureRequest) -> Callable[..., Replayed]:
    """Replay a body against recorded rejections; never touches the network."""
    mode = request.config.getoption("record_mode", default="none")
    if mode not in (None, "none"):
        pytest.fail(f"--record-mode={mode}: recorded rejections replay only; re-record with `harness probe`")
    marker = request.node.get_closest_marker("rejections")
    defaults: dict[str, Any] = dict(marker.kwargs) if marker else {}
    suite = Path(request.config.getoption("rejections_suite"))
    catalog = cached_catalog(*_settings(suite))
    if not catalog.rules.rules:  # a wrong or missing suite path must not read as "nothing rejected"
        pytest.fail(f"--rejections-suite={suite}: no rejection rules found there (rules files "
                    f"{', '.join(_settings(suite)[2])} under {suite.resolve()}); replaying against no rules "
                    "would pass every body", pytrace=False)

    def send(body: Any, fronts: Sequence[str] | None = None, lane: str | None = None,
             url: str | None = None) -> Replayed:
        validators = tuple(fronts or defaults.get("fronts") or ())
        lane_id = lane or defaults.get("lane") or "test"
        if not validators:
            pytest.fail("rejection_replay needs fronts=[...] (argument or @pytest.mark.rejections)")
        return replay(catalog, Lane(id=lane_id, wire="", provider="", fronts=validators), body, url)

    return send
