"""A Python callable run in this process, with the guards of ``harness._pipeline.calls``.

The callable is resolved against its suite's folder: when another suite loaded in the same
process already imported a module of the same name, that module is dropped and this suite's
own file imported instead (the pipeline is keyed by suite, never by bare module name).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness._model import Observation, PipelineSpec, Side
from harness._pipeline.calls import call_given, call_pipeline

__all__ = ["InProcessPipeline", "resolve_in_suite"]


def _suite_owns(module: str, root: Path) -> bool:
    base = root.joinpath(*module.split(".")[:1])
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def resolve_in_suite(call: str, root: str | None) -> Callable[..., Any]:
    """``module:function`` imported so that, for a module the suite folder holds, the suite's
    own file is the one used. SubjectError names ``call`` when it cannot be imported."""
    from harness._plugins import load_callable

    module = call.partition(":")[0]
    if root and _suite_owns(module, Path(root)):
        top = module.split(".")[0]
        for name in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
            origin = getattr(sys.modules[name], "__file__", None)
            if origin and not Path(origin).resolve().is_relative_to(Path(root).resolve()):
                del sys.modules[name]
        if root in sys.path:
            sys.path.remove(root)
        sys.path.insert(0, root)
    return load_callable(call)


class InProcessPipeline:
    def __init__(self, spec: PipelineSpec) -> None:
        assert spec.call is not None
        self.spec = spec
        self.fn = resolve_in_suite(spec.call, spec.root)

    def call(self, pipeline_input: Any, lane: dict[str, Any], *, case_id: str, lane_id: str, side: Side,
             timeout: float | None, packed: bytes | None = None) -> Observation:
        return call_pipeline(self.fn, pipeline_input, lane, case_id=case_id, lane_id=lane_id, side=side,
                             timeout=timeout, packed=packed)

    def call_given(self, given: Any, lane: dict[str, Any], *, case_id: str, lane_id: str, side: Side,
                   timeout: float | None, keep_timer: bool = False) -> Observation:
        """One call on exactly ``given`` and ``lane``, no copy: the caller keeps other calls'
        inputs safe from what this one does to them (``harness._differential.inputs``). ``keep_timer``: see
        ``harness._pipeline.calls.call_given``."""
        return call_given(self.fn, given, lane, case_id=case_id, lane_id=lane_id, side=side, timeout=timeout,
                          keep_timer=keep_timer)

    def close(self) -> None:
        """Nothing to release: the callable lives as long as this process."""
