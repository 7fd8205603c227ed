"""A Python pin that says where it runs, then sleeps."""

import os
import time
from pathlib import Path


def test_a_pin_that_takes_its_time() -> None:
    (Path(__file__).parent / "pin-started").write_text(str(os.getpid()))
    time.sleep(120)
