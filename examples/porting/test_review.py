"""The reviewer's pins, as they were written for the review: each takes the module under review
(``router``) and calls it directly. Ported into the harness unchanged; conftest.py supplies
``router``."""

import pytest

UNION = {"anyOf": [{"type": "object", "properties": {"city": {"type": "string"}}},
                   {"type": "object", "properties": {"lat": {"type": "number"}}}]}


def lane(base_url):
    return {"id": "t", "wire": "anthropic-messages", "provider": "anthropic", "base_url": base_url,
            "model": "m", "options": {}, "fronts": []}


def test_host_is_case_insensitive(router):
    assert router.is_first_party(lane("HTTPS://API.Anthropic.com"))


def test_trailing_dot_host_is_first_party(router):
    assert router.is_first_party(lane("https://api.anthropic.com./v1"))


@pytest.mark.parametrize("base_url", [
    "https://api.anthropic.com.evil.example",
    "https://evilapi.anthropic.com",
    "https://proxy.example.org/api.anthropic.com",
])
def test_lookalike_hosts_are_not_first_party(router, base_url):
    assert not router.is_first_party(lane(base_url))


def test_first_party_flattens_root_union(router):
    body = router.new_body({"tools": [{"name": "where", "input_schema": UNION}]}, lane("https://api.anthropic.com"))
    assert body["tools"][0]["input_schema"] == {
        "type": "object", "properties": {"city": {"type": "string"}, "lat": {"type": "number"}}}


@pytest.mark.parametrize("base_url", ["https://proxy.example.org", "https://api.deepseek.com/anthropic"])
def test_other_lanes_ship_verbatim(router, base_url):
    body = router.new_body({"tools": [{"name": "where", "input_schema": UNION}]}, lane(base_url))
    assert body["tools"][0]["input_schema"] == UNION
