"""Moved to ``harness.pipeline.calls``; this name stays for callers of the previous layout."""

from harness.pipeline.calls import PipelineTimeout, call_isolated, call_pipeline, deadline, pack

__all__ = ["PipelineTimeout", "call_isolated", "call_pipeline", "deadline", "pack"]
