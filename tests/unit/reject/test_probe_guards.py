"""The probe talks only to the lane's host, at the recorded path, with the provider's auth header."""

from __future__ import annotations

import httpx
import pytest

from harness.errors import ConfigError
from harness.model import Lane
from harness.reject.probe import _host_guard, _url, auth_headers

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


@pytest.mark.parametrize(("provider", "header"), [("anthropic", "x-api-key"), ("google", "x-goog-api-key"),
                                                  ("openai", "Authorization")])
def test_each_provider_gets_its_own_auth_header(provider: str, header: str) -> None:
    assert header in auth_headers(provider, "k")
