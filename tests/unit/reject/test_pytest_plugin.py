"""The rejection_replay pytest plugin, run inside a real pytest session (pytester) over a scenario suite."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.reject.scenario import GOOD_BODY, MESSAGE, write_scenario

pytest_plugins = ["pytester"]

# no cache folder, and (as this repository's own pyproject.toml has it) none of the pytest plugins
# that come with dependencies and that no session here uses: each in-process session would
# import them again (pytester puts sys.modules back after each)
QUIET = ("-p", "no:cacheprovider", "-p", "no:anyio", "-p", "no:platformdirs")

CLEAN_BODY = {"model": "m", "tools": [{"name": "ok", "input_schema": {"type": "object", "properties": {}}}]}

TESTS = '''
import socket

import pytest

import harness._reject.replay as replay_module

GOOD_BODY = {good}
CLEAN_BODY = {clean}
LISTENER = ("127.0.0.1", {port})


@pytest.mark.rejections(fronts=["anthropic"])
def test_a_body_that_fires_a_rule_replays_the_recorded_rejection(rejection_replay):
    result = rejection_replay(GOOD_BODY)
    assert result.status == "rejected"
    assert result.rules == ("demo.root-composition",)
    assert result.response_status == 400
    assert {message!r} in result.response_body
    assert result.receipts == ("D1",)


def test_a_clean_body_is_unknown_and_not_sent(rejection_replay, monkeypatch):
    encoded = []  # replay encodes a body only to send it
    monkeypatch.setattr(replay_module, "canonical_bytes", lambda value: encoded.append(value) or b"{{}}")
    result = rejection_replay(CLEAN_BODY, fronts=["anthropic"], url="http://%s:%d/v1/messages" % LISTENER)
    assert result.status == "unknown" and result.rules == ()
    assert result.response_status is None and result.response_body == ""
    assert encoded == []


@pytest.mark.rejections(fronts=["anthropic"])
def test_a_socket_opened_during_a_replay_is_blocked(rejection_replay, monkeypatch):
    attempts = []
    real = replay_module.canonical_bytes

    def dial_out_then_encode(value):
        # runs inside replay's block_network(): the moment a careless client would dial out
        for how in ("connect", "connect_ex"):
            with socket.socket() as sock:
                try:
                    attempts.append((how, getattr(sock, how)(LISTENER)))
                except OSError as exc:
                    attempts.append((how, type(exc).__name__))
        return real(value)

    monkeypatch.setattr(replay_module, "canonical_bytes", dial_out_then_encode)
    assert rejection_replay(GOOD_BODY).status == "rejected"
    assert attempts == [("connect", "ConnectionRefusedError"), ("connect_ex", {refused})]
    with socket.socket() as sock:  # and the doors are open again once the replay is over
        assert sock.connect_ex(LISTENER) == 0
'''


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A loopback socket nothing should reach during a replay (only the check afterwards)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock
    sock.close()


def _accepted(listener: socket.socket) -> int:
    count = 0
    while True:
        try:
            conn, _ = listener.accept()
        except BlockingIOError:
            return count
        conn.close()
        count += 1


@pytest.fixture
def suite_tests(pytester: pytest.Pytester, listener: socket.socket, tmp_path: Path) -> Path:
    import errno

    suite = write_scenario(tmp_path)
    pytester.makeconftest('pytest_plugins = ["harness.reject.pytest_plugin"]\n')
    pytester.makepyfile(test_replays=TESTS.format(
        good=json.dumps(GOOD_BODY), clean=json.dumps(CLEAN_BODY), port=listener.getsockname()[1],
        message=MESSAGE.split(": ", 1)[1], refused=errno.ECONNREFUSED))
    return suite


def test_replays_in_a_users_pytest_session_reject_known_bodies_skip_clean_ones_and_block_sockets(
        pytester: pytest.Pytester, suite_tests: Path, listener: socket.socket) -> None:
    result = pytester.runpytest(f"--rejections-suite={suite_tests}", *QUIET)
    result.assert_outcomes(passed=3)
    # only the final connect_ex, made after the replay, reached the listener
    assert _accepted(listener) == 1


def test_record_mode_once_is_refused_with_a_pointer_to_harness_probe(
        pytester: pytest.Pytester, suite_tests: Path, listener: socket.socket) -> None:
    result = pytester.runpytest(f"--rejections-suite={suite_tests}", "--record-mode=once", *QUIET, "-k",
                                "fires_a_rule")
    result.assert_outcomes(errors=1)  # refused in the fixture, before the test body runs
    result.stdout.fnmatch_lines(["*--record-mode=once: recorded rejections replay only*harness probe*"])
    assert _accepted(listener) == 0


def test_a_suite_path_that_holds_no_suite_is_refused_instead_of_meaning_the_bundled_catalog(
        pytester: pytest.Pytester, suite_tests: Path, tmp_path: Path) -> None:
    empty = tmp_path / "no-such-suite"
    empty.mkdir()
    result = pytester.runpytest(f"--rejections-suite={empty}", *QUIET, "-k", "fires_a_rule")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*--rejections-suite=*no-such-suite*: expected a suite folder*"])


def test_a_suite_that_says_rules_none_is_refused_instead_of_passing_every_body(
        pytester: pytest.Pytester, suite_tests: Path, tmp_path: Path) -> None:
    off = tmp_path / "rules-off"
    off.mkdir()
    (off / "suite.yaml").write_text("version: 1\nrules: none\n")
    result = pytester.runpytest(f"--rejections-suite={off}", *QUIET, "-k", "fires_a_rule")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*its suite.yaml says rules: none; replaying against no rules would pass every body*"])


def test_without_a_suite_named_a_session_outside_this_repository_replays_the_bundled_catalog(
        pytester: pytest.Pytester) -> None:
    pytester.makeconftest('pytest_plugins = ["harness.reject.pytest_plugin"]\n')
    pytester.makepyfile(test_bundled='''
import pytest

ROOT_ONEOF = {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}


@pytest.mark.rejections(fronts=["anthropic"])
def test_a_root_oneof_to_anthropic_is_the_recorded_400(rejection_replay):
    result = rejection_replay({"model": "m", "tools": [{"name": "t", "input_schema": ROOT_ONEOF}]})
    assert result.status == "rejected" and "anthropic.root-composition" in result.rules
    assert result.response_status == 400
''')
    assert not (pytester.path / "cases").exists()  # the old default, this repository's layout, is not here
    pytester.runpytest(*QUIET).assert_outcomes(passed=1)
