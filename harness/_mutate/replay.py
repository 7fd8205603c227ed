"""What checks a declared ``equivalent``: outputs, compared on unmutated code and with the mutant on.

"No pin turned red" only says the pins cannot tell; an equivalence claim holds when the outputs
the suite can produce are the same with the mutant on. Two kinds of output are compared:

- **case x lane outputs** (``harness._mutate.outputs.fingerprints``): the subjects' ``new``
  pipelines on every case x lane, in a suite of case files;
- **the pins' own calls**: while the passing pins warm up in the engine's parent, every call a
  Python pin makes into a project function (directly, or through a mutmut trampoline) is
  recorded with a deep copy of its arguments. Each is replayed there on unmutated code (twice:
  a call whose output is not the same both times says nothing and is dropped) and, in a declared
  equivalent's row, with the mutant on; the output is the return value (or the error raised) and
  the arguments after the call (a function that edits its input in place returns nothing).

Each output is traced once on unmutated code for the target functions it reaches, so a mutant's
row compares only what reaches its function, and a claim nothing reached is **unchecked**, never
held (``harness._mutate.results``). Outputs from sides in another process (a whole-file mutant)
cannot be traced: their case x lane outputs count when the suite has cases.
"""

from __future__ import annotations

import copy
import hashlib
import pickle
import re
import sys
import threading
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from harness._pipeline.calls import PipelineTimeout, deadline

__all__ = ["Call", "EquivalenceCheck", "Recorder", "recorder_for"]

MAX_CALLS = 400  # calls kept over the whole warm-up
MAX_PER_FUNCTION = 40  # distinct inputs kept per function
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_NOT_PROJECT = ("harness", "_pytest", "pytest", "pluggy", "mutmut")


@dataclass
class Call:
    """One recorded call: which pin made it, into what, with what (deep copies)."""

    pin: str
    label: str  # module:qualname
    func: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    printed: str = ""
    reach: frozenset[str] = frozenset()

    def replay(self) -> str:
        """The output's print: the return value (or error raised) and the arguments after the call."""
        args, kwargs = copy.deepcopy((self.args, self.kwargs))
        try:
            result: Any = self.func(*args, **kwargs)
        except (Exception, SystemExit) as exc:
            result = f"raised {type(exc).__name__}: {str(exc)[:200]}"
        return _printed([result, list(args), kwargs])


def _printed(value: Any) -> str:
    from harness._common.canonical import canonical_bytes

    try:
        blob = canonical_bytes(value)
    except Exception:  # not JSON: its repr, without the addresses that differ between copies
        blob = _ADDRESS.sub("", repr(value)).encode("utf-8", "replace")
    return hashlib.sha256(blob).hexdigest()


def _digest(value: Any) -> str:
    try:
        blob = pickle.dumps(value, protocol=4)
    except Exception:
        blob = _ADDRESS.sub("", repr(value)).encode("utf-8", "replace")
    return hashlib.sha256(blob).hexdigest()


def _is_project(module: str, root: str) -> bool:
    """A module of the user's project: under ``root``, not a library, not the harness."""
    if not module or module.split(".", 1)[0] in _NOT_PROJECT:
        return False
    loaded = sys.modules.get(module)
    where = str(getattr(loaded, "__file__", "") or "")
    return where.startswith(root) and "site-packages" not in where and "dist-packages" not in where


def _arguments(frame: types.FrameType) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The call's arguments, read off its frame at the call event (before the body runs)."""
    code, local = frame.f_code, frame.f_locals
    n, k = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames
    args = [local[name] for name in names[:n]]
    kwargs = {name: local[name] for name in names[n:n + k]}
    at = n + k
    if code.co_flags & 0x04:  # CO_VARARGS
        args.extend(local[names[at]])
        at += 1
    if code.co_flags & 0x08:  # CO_VARKEYWORDS
        kwargs.update(local[names[at]])
    return tuple(args), kwargs


def _function(frame: types.FrameType) -> Callable[..., Any] | None:
    """The function object ``frame`` runs, found by its qualified name in its module; a
    trampoline's original (``x_f__mutmut_orig``) is found as ``f``, the trampoline, which a
    declared mutant retargets. None for nested functions and anything not found by name."""
    from harness._mutate.mutmut_adapter import original_function_name

    code = frame.f_code
    qual = original_function_name(code.co_qualname)
    if qual is None or "<" in qual:
        return None
    obj: Any = frame.f_globals.get(qual.split(".")[0])
    for part in qual.split(".")[1:]:
        obj = vars(obj).get(part) if isinstance(obj, type) else None
    obj = getattr(obj, "__func__", obj)  # staticmethod, classmethod: the recorded arguments include cls
    if qual != code.co_qualname:  # the trampoline, which runs the original (or a declared mutant)
        return obj if callable(obj) else None
    return obj if getattr(obj, "__code__", None) is code else None


class Recorder:
    """A profile hook that records the calls pins make into project functions."""

    def __init__(self, pin_files: set[str], root: str) -> None:
        self.pin_files = pin_files
        self.root = root
        self.pin = ""
        self.calls: list[Call] = []
        self._seen: set[tuple[str, str]] = set()
        self._per: dict[str, int] = {}

    @contextmanager
    def recording(self, pin: str) -> Iterator[None]:
        """Record the calls ``pin`` makes while the block runs (nothing without pin files)."""
        if not self.pin_files:
            yield
            return
        self.pin = pin
        sys.setprofile(self._profile)
        try:
            yield
        finally:
            sys.setprofile(None)

    def _caller_is_pin(self, frame: types.FrameType) -> bool:
        caller = frame.f_back
        while caller is not None and str(caller.f_globals.get("__name__", "")).startswith("mutmut"):
            caller = caller.f_back  # a trampoline between the pin and the function
        return caller is not None and caller.f_code.co_filename in self.pin_files

    def _profile(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if event != "call" or len(self.calls) >= MAX_CALLS or frame.f_code.co_flags & 0x2A0:
            return  # 0x2A0: generators and coroutines, whose output is not their value
        module = str(frame.f_globals.get("__name__", ""))
        if frame.f_code.co_filename in self.pin_files or not self._caller_is_pin(frame):
            return
        if not _is_project(module, self.root):
            return
        self._keep(frame, module)

    def _keep(self, frame: types.FrameType, module: str) -> None:
        func = _function(frame)
        if func is None:
            return
        label = f"{module}:{getattr(func, '__qualname__', frame.f_code.co_qualname)}"
        try:
            args, kwargs = copy.deepcopy(_arguments(frame))
        except Exception:  # a module, a lock, an open file: not replayable
            return
        key = (label, _digest((args, kwargs)))
        if key in self._seen or self._per.get(label, 0) >= MAX_PER_FUNCTION:
            return
        self._seen.add(key)
        self._per[label] = self._per.get(label, 0) + 1
        self.calls.append(Call(self.pin, label, func, args, kwargs))


def recorder_for(items: Sequence[Any], harness_items: Sequence[bool], plan: Mapping[str, Any]) -> Recorder:
    """The warm-up's recorder: of the Python pins' calls when a declared equivalent is selected,
    else one that records nothing."""
    selected = set(plan["selected"]) - set(plan["done"])
    wanted = any(m.get("equivalent") and m["key"] in selected for m in plan["mutants"])
    files = {str(item.path) for item, ours in zip(items, harness_items, strict=True) if not ours} if wanted else set()
    return Recorder(files, str(plan["root"]))


# one recorded call replayed twice on unmutated code, in the engine's parent; past it the call is
# dropped (PipelineTimeout is a BaseException: the replayed code's ``except Exception`` lets it through)
REPLAY_DEADLINE_S = 10.0


def _traced(coverage: Any, run: Callable[[], Any]) -> tuple[Any, frozenset[str]]:
    """``run()`` under the coverage hook: its value and the target functions it reached."""
    coverage.hits.clear()
    coverage.start()
    try:
        value = run()
    finally:
        sys.settrace(None)
        threading.settrace(None)
    return value, frozenset(coverage.hits.functions)


@dataclass
class EquivalenceCheck:
    """The outputs a declared equivalent's row compares, made on unmutated code in the parent."""

    suite_root: str
    cases: dict[str, str] | None = None  # case[lane] -> print (outputs.fingerprints), None without cases
    case_reach: frozenset[str] = frozenset()
    calls: list[Call] = field(default_factory=list)

    @classmethod
    def prepare(cls, suite_root: str, coverage: Any, recorded: Sequence[Call]) -> EquivalenceCheck:
        from harness._mutate.outputs import fingerprints

        cases, reach = _traced(coverage, lambda: fingerprints(suite_root))
        kept = []
        for call in recorded:
            try:
                with deadline(REPLAY_DEADLINE_S):
                    printed, call.reach = _traced(coverage, call.replay)
                    again = call.replay()
            except PipelineTimeout:  # it ran in its pin; replayed alone it does not end: nothing to compare
                continue
            if printed == again:  # the same output twice: a call worth comparing
                call.printed = printed
                kept.append(call)
        return cls(suite_root, cases, reach, kept)

    def _calls_for(self, m: Mapping[str, Any]) -> list[Call]:
        from harness._mutate.coverage import reaches

        return [c for c in self.calls if m.get("module") and reaches(m, set(c.reach))]

    def _cases_count(self, m: Mapping[str, Any]) -> int:
        """How many case x lane outputs are evidence for ``m``: all of them for a whole-file mutant
        (its sides run elsewhere, untraced), else only when they reach its function."""
        from harness._mutate.coverage import reaches
        from harness._mutate.rowpins import how

        if not self.cases:
            return 0
        return len(self.cases) if how(m) == "file" or reaches(m, set(self.case_reach)) else 0

    def wants(self, m: Mapping[str, Any]) -> bool:
        """Whether ``m``'s row has outputs to compare (else its claim stays unchecked)."""
        return bool(m.get("equivalent")) and bool(self._cases_count(m) or self._calls_for(m))

    def run(self, m: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """In ``m``'s row, the mutant on: the outputs that differ, and what was compared."""
        from harness._mutate.outputs import differing, fingerprints

        changed = differing(self.cases, fingerprints(self.suite_root)) if self._cases_count(m) and self.cases else []
        calls = self._calls_for(m)
        changed += [f"{c.label} called by {c.pin}" for c in calls if c.replay() != c.printed]
        extra = {"differ": changed[:50], "count": len(changed), "cases": self._cases_count(m), "calls": len(calls)}
        return ("failed" if changed else "passed"), extra

