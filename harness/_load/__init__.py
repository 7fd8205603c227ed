"""Load stage: a suite folder in, frozen Suite out, or every input error at once."""

from harness._load.suite import load_suite

__all__ = ["load_suite"]
