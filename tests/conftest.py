"""Shared test fixtures. Scenario folders under tests/scenarios are inputs, not tests: they
contain pipelines that crash and hang on purpose, so pytest must never collect them directly."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

# Hypothesis keeps caches (constants, unicode tables) in ./.hypothesis even with no example
# database: point it outside the checkout, so no test run writes into the tree (the mutation
# tests hash the tree before and after, and a parallel fuzz test would change it under them).
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(Path(tempfile.gettempdir()) / "wire-harness-hypothesis"))

import pytest

from harness._pins import cache

collect_ignore = ["scenarios"]

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def shared() -> Path:
    """../shared beside the clone; tests that need it skip with the reason when it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"needs the shared corpora folder at {SHARED}, which is absent in this checkout")
    return SHARED


@pytest.fixture
def scenarios() -> Path:
    return REPO / "tests" / "scenarios"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers partition the suite (tests/README.md): the README's command runs what is neither
    heavy nor expensive, `tox -e heavy` and `tox -e expensive` the rest. A test in both would run
    twice nightly and make the per-tier counts add up to more than the suite."""
    both = [item.nodeid for item in items
            if item.get_closest_marker("heavy") and item.get_closest_marker("expensive")]
    if both:
        raise pytest.UsageError(f"marked both heavy and expensive (pick one tier): {both}")


@pytest.fixture(autouse=True)
def _pins_side_restored() -> Iterator[None]:
    """An in-process pytester session run with ``--harness-against old`` leaves the pins cache
    playing old for the rest of this process; the next test on the same xdist worker would then
    read old observations as new (an order-dependent failure). Each test ends with the side it
    started with."""
    side = cache.against()
    yield
    cache.set_against(side)
