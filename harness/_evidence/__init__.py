"""The evidence a run keeps: every observation's bytes, content-addressed, with an index."""

from harness._evidence.store import Limits, ObservationStore, Saved, body_relpath, load_observations

__all__ = ["Limits", "ObservationStore", "Saved", "body_relpath", "load_observations"]
