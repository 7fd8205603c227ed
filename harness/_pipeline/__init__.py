"""Pipelines, however they are reached: in this process, another interpreter, or a command.

See ``harness._pipeline.base`` for the seam, ``harness._pipeline.protocol`` and
``docs/protocol.md`` for the JSON-lines protocol, ``harness._pipeline.setup`` for a side's
one-time ``setup`` command.
"""

from harness._pipeline.base import Pipeline, Pipelines, open_pipeline
from harness._pipeline.calls import call_isolated, call_pipeline, pack
from harness._pipeline.setup import prepare

__all__ = ["Pipeline", "Pipelines", "call_isolated", "call_pipeline", "open_pipeline", "pack", "prepare"]
