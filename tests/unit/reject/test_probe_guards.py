"""The probe talks only to the lane's host, at the recorded path, with the provider's auth header."""

from __future__ import annotations

import ssl
from pathlib import Path

import httpx
import pytest

from harness._errors import ConfigError
from harness._model import Lane
from harness._reject.bounded import bounded_transport, tls_context
from harness._reject.probe import _host_guard, _scrub_response, _url, auth_headers

LANE = Lane(id="l", wire="w", provider="anthropic", base_url="https://api.anthropic.com/v1", fronts=("anthropic",))


def test_a_request_to_another_host_is_refused_before_it_leaves() -> None:
    guard = _host_guard(LANE)
    guard(httpx.Request("POST", "https://api.anthropic.com/v1/messages"))
    with pytest.raises(ConfigError, match=r"api\.anthropic\.com"):
        guard(httpx.Request("POST", "https://evil.invalid/v1/messages"))


def test_the_recorded_path_is_joined_to_the_lane_base_url_once() -> None:
    assert _url(LANE, "https://api.anthropic.com/v1/messages") == "https://api.anthropic.com/v1/messages"
    bare = Lane(id="b", wire="w", provider="x", base_url="http://127.0.0.1:9")
    assert _url(bare, "https://api.openai.com/v1/chat/completions") == "http://127.0.0.1:9/v1/chat/completions"


def test_a_lane_without_a_base_url_cannot_be_probed() -> None:
    with pytest.raises(ConfigError):
        _url(Lane(id="n", wire="w", provider="x"), "https://a.invalid/x")


@pytest.mark.parametrize(("provider", "expected"), [
    ("anthropic", {"x-api-key": "k-123", "anthropic-version": "2023-06-01"}),
    ("google", {"x-goog-api-key": "k-123"}),
    ("openai", {"Authorization": "Bearer k-123"}),
])
def test_each_provider_gets_its_own_auth_header(provider: str, expected: dict[str, str]) -> None:
    assert auth_headers(provider, "k-123") == expected


def test_credential_headers_are_scrubbed_from_a_recorded_response_and_the_rest_kept() -> None:
    response = {"status": {"code": 401}, "headers": {
        "Set-Cookie": ["session=abc123"], "x-api-key": ["sk-echoed"], "Content-Type": ["application/json"],
        "request-id": ["req_1"]}}
    assert _scrub_response(response)["headers"] == {"Content-Type": ["application/json"], "request-id": ["req_1"]}


CREDENTIALED = Lane(id="cred", wire="w", provider="openai", base_url="https://bob:pw-s3cret@gw.invalid/v1")


def test_a_lane_url_with_credentials_is_refused_without_echoing_them() -> None:
    for attempt in (lambda: _url(CREDENTIALED, "https://gw.invalid/v1/chat/completions"),
                    lambda: _host_guard(CREDENTIALED)):
        with pytest.raises(ConfigError) as caught:
            attempt()
        assert "lanes[cred].base_url" in str(caught.value)
        assert "pw-s3cret" not in str(caught.value) and "bob" not in str(caught.value)


def test_the_url_is_built_from_host_and_port_and_the_guard_compares_them() -> None:
    lane = Lane(id="p", wire="w", provider="x", base_url="http://LOCALHOST:8080/v1/")
    assert _url(lane, "https://api.openai.com/v1/chat/completions") == "http://localhost:8080/v1/chat/completions"
    guard = _host_guard(lane)
    guard(httpx.Request("POST", "http://localhost:8080/v1/chat/completions"))
    with pytest.raises(ConfigError, match="localhost:8080"):
        guard(httpx.Request("POST", "http://localhost:9090/v1/chat/completions"))
    with pytest.raises(ConfigError) as caught:
        guard(httpx.Request("POST", "http://eve:pw-leak@evil.invalid/v1/chat/completions"))
    assert "pw-leak" not in str(caught.value) and "evil.invalid" in str(caught.value)


@pytest.mark.parametrize(("option", "value"), [("--timeout", "-5"), ("--timeout", "0"), ("--timeout", "nan"),
                                               ("--limit", "-1"), ("--limit", "0")])
def test_a_timeout_or_limit_out_of_range_is_a_usage_error_before_anything_runs(
        tmp_path: Path, option: str, value: str) -> None:
    from click.testing import CliRunner

    from harness._cli.main import cli

    result = CliRunner().invoke(cli, ["probe", "--lane", "x", "--suite", str(tmp_path / "nowhere"),
                                      "--out", str(tmp_path / "out"), option, value])
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.output
    assert not (tmp_path / "out").exists()


def test_a_server_error_to_an_uncovered_body_could_not_check_it_rather_than_being_a_new_rejection() -> None:
    from harness._reject.probe import _judge

    answer = httpx.Response(502, text="bad gateway", request=httpx.Request("POST", "http://127.0.0.1/v1"))
    # no catalog: a 5xx is never compared with a rule's message
    assert _judge(None, None, answer, "") == ("error", "server error 502")  # type: ignore[arg-type]


def test_every_probe_transport_verifies_certificates_with_the_one_context_the_process_builds() -> None:
    # building a context loads the CA bundle (25 ms a client): one per process, verification on
    transports = [bounded_transport(1 << 20, 5.0) for _ in range(2)]
    contexts = {id(t._pool._pool._ssl_context) for t in transports}  # type: ignore[attr-defined]
    assert contexts == {id(tls_context())}
    assert tls_context().verify_mode == ssl.CERT_REQUIRED and tls_context().check_hostname
    assert tls_context().get_ca_certs()
