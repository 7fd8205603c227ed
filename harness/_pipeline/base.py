"""The pipeline seam: one protocol every stage calls, whatever the pipeline is made of.

    Pipeline (Protocol)      call(input, lane, ...) -> Observation; close()
    ├── InProcessPipeline    a Python callable in this process (``harness._pipeline.inprocess``)
    └── CommandPipeline      a long-lived program speaking JSON lines (``harness._pipeline.command``);
                             a Python callable inside another interpreter is one of these, served
                             by ``harness/adapter/serve.py``

The build stage, the pin stage and the mutation engine all reach pipelines through
``Pipelines``, a per-process table keyed by ``PipelineSpec`` (which carries its suite's root),
so a long-lived command is started once per process and reused for every call.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol, runtime_checkable

from harness._model import Observation, PipelineSpec, Side

__all__ = ["Pipeline", "Pipelines", "open_pipeline"]


@runtime_checkable
class Pipeline(Protocol):
    """One pipeline, ready to be called. ``call`` never raises for what the pipeline does: a
    raise, a hang, a crash or a malformed answer is an Observation with that outcome."""

    spec: PipelineSpec

    def call(self, pipeline_input: Any, lane: dict[str, Any], *, case_id: str, lane_id: str, side: Side,
             timeout: float | None, packed: bytes | None = None) -> Observation:
        """Run the pipeline once on ``(input, lane)``. ``packed`` is ``pack(input)`` when the
        caller already has it (in-process pipelines unpickle a fresh copy from it)."""
        ...

    def close(self) -> None:
        """Release what the pipeline holds (a child process); calling again is harmless."""
        ...


def open_pipeline(spec: PipelineSpec) -> Pipeline:
    """The runner for ``spec``. SubjectError when an in-process callable cannot be imported;
    a command that cannot start is not an error here: its calls come back as outcomes."""
    if spec.kind == "client":  # a whole HTTP client, on the wire or in process (harness._pipeline.capture)
        from harness._pipeline.capture import open_client

        return open_client(spec)
    if spec.in_process:
        from harness._pipeline.inprocess import InProcessPipeline

        return InProcessPipeline(spec)
    from harness._pipeline.command import CommandPipeline

    return CommandPipeline(spec)


class Pipelines:
    """Open pipelines of this process, by spec; ``close()`` ends every child they started."""

    def __init__(self) -> None:
        self._open: dict[PipelineSpec, Pipeline] = {}

    def get(self, spec: PipelineSpec) -> Pipeline:
        if spec not in self._open:
            self._open[spec] = open_pipeline(spec)
        return self._open[spec]

    def close(self) -> None:
        """Close every open pipeline, all at once: a program closed after another would wait out
        the other's shutdown grace first (docs/protocol.md gives each program 2 s, not its share
        of 2 s). The first error a close raised is raised once all are closed."""
        opened = list(self._open.values())
        self._open.clear()
        if len(opened) <= 1:
            for pipeline in opened:
                pipeline.close()
            return
        errors: list[BaseException] = []

        def close(pipeline: Pipeline) -> None:
            try:
                pipeline.close()
            except BaseException as exc:  # raised below, in the caller's thread
                errors.append(exc)

        threads = [threading.Thread(target=close, args=(pipeline,), daemon=True) for pipeline in opened]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]

    def __enter__(self) -> Pipelines:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
