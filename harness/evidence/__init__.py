"""The evidence a run keeps: every observation's bytes, content-addressed, with an index."""

from harness.evidence.store import ObservationStore, load_observations

__all__ = ["ObservationStore", "load_observations"]
