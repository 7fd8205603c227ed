"""A Python pin: its outcome reaches the run folder's pins.jsonl beside the case-file ones."""

from typing import Any


def test_the_first_case_names_its_lane_on_every_lane(observe: Any) -> None:
    assert observe("c0", "one").value["lane"] == "one"
    assert observe("c0", "two").value["lane"] == "two"
