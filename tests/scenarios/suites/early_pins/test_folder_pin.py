"""A Python pin that writes down what the run's output folder held when it ran."""

import os
from typing import Any


def test_the_run_folder_exists_when_a_pin_runs(observe: Any) -> None:
    assert observe("c0", "one").ok
    out = os.environ["EARLY_PINS_OUT"]
    with open(os.environ["EARLY_PINS_SEEN"], "w") as seen:
        seen.write("\n".join(sorted(os.listdir(out))))
