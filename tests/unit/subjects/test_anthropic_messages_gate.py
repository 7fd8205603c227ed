"""The first-party gate of anthropic_messages: identity or the parsed host api.anthropic.com."""

from __future__ import annotations

import pytest

from harness.subjects.anthropic_messages.gate import first_party_endpoint, is_first_party


@pytest.mark.parametrize("url", [
    "https://api.anthropic.com",
    "https://api.anthropic.com/v1/messages",
    "HTTPS://api.anthropic.com",
    "https://API.Anthropic.COM",
    "https://api.anthropic.com.",
    "https://api.anthropic.com./v1",
    "//api.anthropic.com",
    "https://api.anthropic.com:443",
    "http://api.anthropic.com",
    "  https://api.anthropic.com  ",
])
def test_spellings_of_the_genuine_endpoint_are_first_party(url: str) -> None:
    assert first_party_endpoint(url)


@pytest.mark.parametrize("url", [
    "https://api.anthropic.com:8443@evil.example",
    "https://api.anthropic.com@evil.example/v1",
    "https://api.anthropic.com.evil.example",
    "https://evil.example/api.anthropic.com",
    "https://proxy.example.org",
    "https://anthropic.com",
    "https://console.anthropic.com",
    "api.anthropic.com",
    "https://[::1",
    "",
    None,
    42,
])
def test_other_urls_are_not_the_first_party_endpoint(url: object) -> None:
    assert not first_party_endpoint(url)


def test_anthropic_identity_is_first_party_on_any_base_url() -> None:
    assert is_first_party({"provider": "anthropic", "base_url": "https://proxy.example.org"})
    assert is_first_party({"provider": "anthropic", "base_url": None})


def test_a_custom_provider_is_first_party_only_at_the_genuine_endpoint() -> None:
    assert is_first_party({"provider": "custom", "base_url": "https://api.anthropic.com"})
    assert not is_first_party({"provider": "custom", "base_url": "https://one-api.gateway.example/v1"})
    assert not is_first_party({"provider": "deepseek", "base_url": "https://api.deepseek.com/anthropic"})
