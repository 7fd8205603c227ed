"""Pipelines, however they are reached: in this process, another interpreter, or a command.

See ``harness.pipeline.base`` for the seam, ``harness.pipeline.protocol`` and
``docs/protocol.md`` for the JSON-lines protocol, ``harness.pipeline.setup`` for a side's
one-time ``setup`` command.
"""

from harness.pipeline.base import Pipeline, Pipelines, open_pipeline
from harness.pipeline.calls import call_isolated, call_pipeline, pack
from harness.pipeline.setup import prepare

__all__ = ["Pipeline", "Pipelines", "call_isolated", "call_pipeline", "open_pipeline", "pack", "prepare"]
