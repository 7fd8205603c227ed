"""The first-party gate of anthropic_messages: the PR head's endpoint predicate and the fixed one.

Seed 001's round-5 review (MINOR-2) names three careless spellings of the genuine URL that the
PR head's ``is_native_anthropic_base_url`` misses and one it wrongly accepts; these tests pin
each, for the PR head (``native_endpoint``) and for the review's fix (``native_endpoint_fixed``).
"""

from __future__ import annotations

import pytest
from wire_harness_subjects.anthropic_messages.gate import (
    ascii_lower,
    host_text,
    is_first_party,
    is_first_party_fixed,
    native_endpoint,
    native_endpoint_fixed,
)

UPPER_SCHEME = "HTTPS://api.anthropic.com"
TRAILING_DOT = "https://api.anthropic.com./v1"
PROTOCOL_RELATIVE = "//api.anthropic.com"
USERINFO = "https://api.anthropic.com:8443@evil.example"

PLAIN_SPELLINGS = [
    "https://api.anthropic.com",
    "https://api.anthropic.com/v1/messages",
    "https://API.Anthropic.COM",
    "https://api.anthropic.com:443",
    "http://api.anthropic.com",
    "  https://api.anthropic.com  ",
    "https://api.anthropic.com?beta=1",
    "https://console.anthropic.com",
]


@pytest.mark.parametrize("url", PLAIN_SPELLINGS)
def test_plain_spellings_of_an_anthropic_host_are_first_party_at_the_pr_head(url: str) -> None:
    assert native_endpoint(url)
    assert native_endpoint_fixed(url)


def test_the_pr_head_misses_an_upper_case_scheme_because_its_strip_is_case_sensitive() -> None:
    assert host_text(UPPER_SCHEME) == "HTTPS"
    assert not native_endpoint(UPPER_SCHEME)


def test_the_pr_head_misses_a_trailing_dot_host() -> None:
    assert host_text(TRAILING_DOT) == "api.anthropic.com."
    assert not native_endpoint(TRAILING_DOT)


def test_the_pr_head_misses_a_protocol_relative_url() -> None:
    assert host_text(PROTOCOL_RELATIVE) == ""
    assert not native_endpoint(PROTOCOL_RELATIVE)


def test_the_pr_head_takes_the_userinfo_trick_for_the_first_party_endpoint() -> None:
    # The text before ':' is read as the host; the request really goes to evil.example.
    assert host_text(USERINFO) == "api.anthropic.com"
    assert native_endpoint(USERINFO)


def test_the_fixed_predicate_narrows_the_upper_case_scheme_and_the_trailing_dot() -> None:
    assert native_endpoint_fixed(UPPER_SCHEME)
    assert native_endpoint_fixed(TRAILING_DOT)
    assert native_endpoint_fixed("HTTPS://API.ANTHROPIC.COM.")


def test_the_fixed_predicate_still_misses_a_protocol_relative_url() -> None:
    # The review's one line lower-cases and trims the dot; '//' is no scheme it strips.
    assert not native_endpoint_fixed(PROTOCOL_RELATIVE)


def test_the_fixed_predicate_still_takes_the_userinfo_trick() -> None:
    assert native_endpoint_fixed(USERINFO)


@pytest.mark.parametrize("url", [
    "https://api.anthropic.com.evil.example",
    "https://evil.example/api.anthropic.com",
    "https://proxy.example.org",
    "https://anthropic.com",
    "https://[api.anthropic.com]/v1",
    "api.anthropic.com.evil.example",
    "",
    None,
    42,
])
def test_other_urls_are_not_the_first_party_endpoint_either_way(url: object) -> None:
    assert not native_endpoint(url)
    assert not native_endpoint_fixed(url)


def test_scheme_prefixes_are_stripped_in_repeats_https_before_http() -> None:
    assert host_text("https://https://api.anthropic.com") == "api.anthropic.com"
    assert host_text("https://http://api.anthropic.com") == "api.anthropic.com"
    assert host_text("http://https://api.anthropic.com") == "https"


def test_ascii_lower_leaves_non_ascii_letters_alone() -> None:
    assert ascii_lower("API.Anthropic.COM") == "api.anthropic.com"
    assert ascii_lower("\u212a\u0130") == "\u212a\u0130"  # Kelvin sign, dotted capital I


def test_anthropic_identity_is_first_party_on_any_base_url() -> None:
    for gate in (is_first_party, is_first_party_fixed):
        assert gate({"provider": "anthropic", "base_url": "https://proxy.example.org"})
        assert gate({"provider": "anthropic", "base_url": None})


def test_a_custom_provider_is_first_party_only_at_an_anthropic_endpoint() -> None:
    for gate in (is_first_party, is_first_party_fixed):
        assert gate({"provider": "custom", "base_url": "https://api.anthropic.com"})
        assert not gate({"provider": "custom", "base_url": "https://one-api.gateway.example/v1"})
        assert not gate({"provider": "deepseek", "base_url": "https://api.deepseek.com/anthropic"})


def test_the_two_gates_differ_exactly_on_the_upper_case_scheme_and_trailing_dot_lanes() -> None:
    lanes = [UPPER_SCHEME, TRAILING_DOT, PROTOCOL_RELATIVE, USERINFO, "https://api.anthropic.com"]
    differ = [url for url in lanes
              if is_first_party({"provider": "custom", "base_url": url})
              != is_first_party_fixed({"provider": "custom", "base_url": url})]
    assert differ == [UPPER_SCHEME, TRAILING_DOT]
