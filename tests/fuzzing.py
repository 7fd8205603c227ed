"""Hypothesis settings for the fuzz tests: brief in the fast tier, long in ``tox -e fuzz``.

``HARNESS_FUZZ=long`` (set by tox's fuzz environment) runs each property for many examples:
about ten minutes for the whole set on this project's 2-core machine. Otherwise each property
runs ``BRIEF`` examples, a few seconds in all. No example database is written: a failure
prints its reproducing example. (Hypothesis still caches constants in `.hypothesis/`, git-ignored.)
"""

from __future__ import annotations

import os
from typing import Any

from hypothesis import HealthCheck, settings

__all__ = ["BRIEF", "fuzz"]

BRIEF = 60
LONG = int(os.environ.get("HARNESS_FUZZ_EXAMPLES", "45000"))  # 6,000 took 75 s of CPU: ~10 minutes


def fuzz(share: float = 1.0) -> Any:
    """The settings decorator for one fuzz property; ``share`` scales its examples (slow ones less)."""
    long = os.environ.get("HARNESS_FUZZ") == "long"
    examples = max(1, int((LONG if long else BRIEF) * share))
    return settings(max_examples=examples, deadline=None, database=None, derandomize=not long,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
