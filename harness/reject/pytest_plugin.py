"""A pytest plugin: replay recorded rejections in your own tests, offline.

    # conftest.py
    pytest_plugins = ["harness.reject.pytest_plugin"]

    @pytest.mark.rejections(fronts=["anthropic"])
    def test_my_client_body_is_not_a_known_rejection(rejection_replay):
        result = rejection_replay(build_my_body())
        assert result.status == "unknown", result.rules

``rejection_replay(body, fronts=None, lane=None)`` checks the body against the rules of the
validators the lane fronts, replays the recorded response when one fires (status "rejected")
and never sends anything (status "unknown" otherwise). The rules and
cassettes are the bundled catalog installed with the harness, or a suite folder's
(``--rejections-suite DIR``: its suite.yaml's ``rules`` and ``cassettes``); a suite whose rules
globs find nothing is refused, since every body would pass.
pytest-recording compatibility: its ``--record-mode`` is honoured when
present (only ``none`` makes sense for recorded rejections; anything else is refused with a
pointer to ``harness probe``), and the network stays blocked during a replay either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from harness._catalog import BUNDLED, RulesSetting, catalog_path
from harness._errors import HarnessError
from harness._model import Lane
from harness._reject.cassettes import Catalog, ensure_suite_folder, suite_settings
from harness._reject.replay import Replayed, replay
from harness._reject.verdicts import cached_catalog

__all__ = ["pytest_addoption", "pytest_configure", "rejection_replay"]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rejections", "recorded provider rejections (wire-harness)")
    group.addoption("--rejections-suite", default=None,
                    help="suite folder whose rules and cassettes rejection_replay uses "
                         "(default: the bundled catalog installed with the harness)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "rejections(fronts=[...], lane=id): the validators rejection_replay checks against")


def _settings(suite: Path | None) -> tuple[str, str | None, RulesSetting]:
    if suite is None:
        return str(catalog_path()), None, BUNDLED
    settings = suite_settings(suite)
    return str(suite.resolve()), settings.cassettes, settings.rules


def _catalog(suite: Path | None) -> Catalog:
    """The catalog replayed against; a suite whose rules cannot load (globs finding nothing among
    them) fails the test that asked, with the suite's own words."""
    try:
        if suite is not None:  # a mistyped path must not quietly mean the bundled catalog
            ensure_suite_folder(suite, "--rejections-suite")
        catalog = cached_catalog(*_settings(suite))
    except HarnessError as exc:
        pytest.fail(str(exc), pytrace=False)
    if not catalog.rules.rules:  # rules: none, said by the suite; a replay would pass every body
        pytest.fail(f"--rejections-suite={suite}: its suite.yaml says rules: none; replaying against no "
                    "rules would pass every body", pytrace=False)
    return catalog


@pytest.fixture
def rejection_replay(request: pytest.FixtureRequest) -> Callable[..., Replayed]:
    """Replay a body against recorded rejections; never touches the network."""
    mode = request.config.getoption("record_mode", default="none")
    if mode not in (None, "none"):
        pytest.fail(f"--record-mode={mode}: recorded rejections replay only; re-record with `harness probe`")
    marker = request.node.get_closest_marker("rejections")
    defaults: dict[str, Any] = dict(marker.kwargs) if marker else {}
    named = request.config.getoption("rejections_suite")
    catalog = _catalog(Path(named) if named else None)

    def send(body: Any, fronts: Sequence[str] | None = None, lane: str | None = None,
             url: str | None = None) -> Replayed:
        validators = tuple(fronts or defaults.get("fronts") or ())
        lane_id = lane or defaults.get("lane") or "test"
        if not validators:
            pytest.fail("rejection_replay needs fronts=[...] (argument or @pytest.mark.rejections)")
        return replay(catalog, Lane(id=lane_id, wire="", provider="", fronts=validators), body, url)

    return send
