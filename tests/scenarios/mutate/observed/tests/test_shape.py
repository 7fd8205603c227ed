from shape import _clean, _describe


def test_clean_drops_titles():
    assert _clean({"title": "x", "type": "object", "properties": {"a": {"title": "y"}}}) == {
        "type": "object", "properties": {"a": {}}}


def test_describe_shortens():
    assert _describe("a" * 30, 10) == "aaaaaaa..."


def test_describe_keeps_short_text():
    assert _describe("abc", 10) == "abc"


def test_the_body_through_observe(observe):
    assert observe("plain", "one").value["tools"][0]["name"] == "t"
