"""Python pins beside the case files: one holds, one fails, one is parametrized by lane."""

from typing import Any

import pytest


def test_a_python_pin_that_holds(observe: Any) -> None:
    assert observe("steady", "plain").value["model"] == "m"


def test_a_python_pin_that_fails(observe: Any) -> None:
    assert observe("steady", "loud").value["tools"][0]["name"] == "echo"


@pytest.mark.parametrize("lane", ["plain", "loud"])
def test_each_lane_names_its_model(observe: Any, lane: str) -> None:
    assert observe("steady", lane).value["model"] == "m"
