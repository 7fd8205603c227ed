import picker

TOOLS = [{"name": "search", "v": 1}, {"name": "fetch", "v": 1}, {"name": "search", "v": 2}]


def test_pick_finds_the_named_tool():
    assert picker.pick(TOOLS, "search")["name"] == "search"  # which of the two: not checked


def test_pick_of_an_unknown_name_is_none():
    assert picker.pick(TOOLS, "nothing") is None


def test_names_are_unique():
    assert sorted(picker.names(TOOLS)) == ["fetch", "search"]
