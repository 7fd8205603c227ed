"""The Python end of the JSON-lines pipeline protocol (version 1). Standard library only.

    serve(old=fn, new=fn, name="my-client", version="1.2")   in a script of yours
    python serve.py --call package.module:function [--name new]   one callable, by path

Protocol stdout is taken over before any pipeline runs: whatever the pipelines (or the
libraries they import) print goes to stderr, so a banner can never corrupt an answer.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import traceback
from collections.abc import Callable
from typing import IO, Any

__all__ = ["serve"]

PROTOCOL_VERSION = 1


def _protocol_stdout() -> IO[str]:
    """A private handle on the real stdout; fd 1 becomes stderr for everyone else."""
    sys.stdout.flush()
    private = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return private


def _where(exc: BaseException) -> str:
    # as harness._pipeline.calls words it, written again: this file runs in other interpreters
    # and imports nothing of the harness
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    last = frames[-1]
    return f"{os.path.basename(last.filename)}:{last.lineno} in {last.name}"


def _error(rid: Any, kind: str, message: str, where: str = "") -> dict[str, Any]:
    return {"type": "error", "id": rid, "error": {"type": kind, "message": message[:2000], "where": where}}


def _answer(request: Any, pipelines: dict[str, Callable[..., Any]]) -> str:
    """The answer line (without its newline) to one decoded request."""
    rid = _call_id(request)
    refused = _refusal(request, rid, pipelines)
    if refused is not None:
        return json.dumps(refused)
    return _call(pipelines[str(request.get("pipeline"))], request, rid)


def _call_id(request: Any) -> int | None:
    """The request's id when it is an integer (a bool is not one), else None."""
    rid = request.get("id") if isinstance(request, dict) else None
    return rid if isinstance(rid, int) and not isinstance(rid, bool) else None


def _refusal(request: Any, rid: int | None, pipelines: dict[str, Callable[..., Any]]) -> dict[str, Any] | None:
    """The error answer to a request that is not a call this program can make, or None."""
    if not isinstance(request, dict) or request.get("type") != "call":
        return _error(rid, "BadRequest", f"expected a call or shutdown message, found {str(request)[:200]}")
    if rid is None:
        return _error(None, "BadRequest", f"a call needs an integer id, found {request.get('id')!r}")
    if pipelines.get(str(request.get("pipeline"))) is None:
        return _error(rid, "UnknownPipeline", f"no pipeline {request.get('pipeline')!r}; "
                      f"this program serves {', '.join(sorted(pipelines))}")
    return None


def _call(fn: Callable[..., Any], request: dict[str, Any], rid: int | None) -> str:
    """The pipeline's answer: its output, or the error it raised or that its output makes."""
    try:
        output = fn(request.get("input"), request.get("lane"))
    except Exception as exc:
        return json.dumps(_error(rid, type(exc).__name__, str(exc), _where(exc)), ensure_ascii=False)
    try:  # an output that cannot go on the wire is the pipeline's error, not the server's end
        return json.dumps({"type": "result", "id": rid, "output": output}, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        return json.dumps(_error(rid, "OutputNotJSON", str(exc)))


def serve(*, name: str = "python", version: str = "", **pipelines: Callable[..., Any]) -> None:
    """Answer calls on stdin until ``shutdown`` or end of input, then return."""
    if not pipelines:
        raise TypeError("serve() needs at least one pipeline, e.g. serve(new=build_body)")
    out = _protocol_stdout()
    hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "pipelines": sorted(pipelines),
             "implementation": {"name": name, "version": version,
                                "language": f"python {platform.python_version()}"}}
    out.write(json.dumps(hello) + "\n")
    for raw in sys.stdin:
        if not raw.strip():
            continue
        try:
            request = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            out.write(json.dumps(_error(None, "BadRequest", f"a line that is not JSON: {exc}")) + "\n")
            continue
        if isinstance(request, dict) and request.get("type") == "shutdown":
            break
        out.write(_answer(request, pipelines) + "\n")
    out.flush()


def _load(call: str) -> Callable[..., Any]:
    module, _, attr = call.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="serve one Python callable over the pipeline protocol")
    parser.add_argument("--call", required=True, help="module:function taking (input, lane)")
    parser.add_argument("--name", default="pipeline", help="the pipeline's name in the protocol")
    args = parser.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]  # our folder shadows nothing
    sys.path.insert(0, os.getcwd())
    serve(name="harness.adapter", version=str(PROTOCOL_VERSION), **{args.name: _load(args.call)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
