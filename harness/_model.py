"""The plain values that flow between stages. Every one is frozen; none does I/O.

    Suite ── lanes: Lane ...      (load)
          ├─ cases: Case ...  ── pins: PinSpec ..., expect: lane -> Expectation
          └─ subjects: Subject ...
    Observation                   (build: one pipeline run on one case x lane)
    Verdict                       (compare: old vs new Observation)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from harness._settings import Settings

__all__ = [
    "SIDES",
    "Allowance",
    "Case",
    "ErrorInfo",
    "Expectation",
    "Lane",
    "Observation",
    "Outcome",
    "PinSpec",
    "PipelineSpec",
    "Side",
    "Subject",
    "Suite",
    "Verdict",
    "VerdictKind",
]

Side = Literal["old", "new"]
SIDES: tuple[Side, Side] = ("old", "new")

Outcome = Literal["ok", "error", "timeout", "crash", "memory"]
"""How one pipeline call ended: returned JSON, raised, ran past its deadline, killed its process,
or ran out of memory under the suite's ``memory_mb`` ceiling."""

VerdictKind = Literal["identical", "reordered", "intended", "unexpected", "error"]
"""The closed set of comparison verdicts (see ``harness._compare``)."""


@dataclass(frozen=True)
class Lane:
    """One route to a provider. Pipelines receive ``as_dict()``: plain JSON, nothing else."""

    id: str
    wire: str
    provider: str
    base_url: str | None = None
    model: str | None = None
    title: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    fronts: tuple[str, ...] = ()
    upstream: str | None = None
    """A translating gateway lane (OpenRouter, LiteLLM): the provider it routes to. Gateway rules
    recorded with that upstream apply (``Rule.meets``); the upstream's own rules, written for its
    native body, do not, so it is not listed in ``fronts``."""
    file: str = ""
    line: int | None = None
    diverges: tuple[Allowance, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "wire": self.wire,
            "provider": self.provider,
            "base_url": self.base_url,
            "model": self.model,
            "options": dict(self.options),
            "fronts": list(self.fronts),
        }


@dataclass(frozen=True)
class PipelineSpec:
    """How to reach one pipeline. Three kinds, one protocol (see ``harness._pipeline``):

    - ``python`` without ``python``: ``call`` (``module:function``) imported into the harness's
      own process (forked per worker);
    - ``python`` with ``python``: the same callable run inside another interpreter (another
      virtualenv or revision), served over the JSON-lines protocol by ``harness/adapter``;
    - ``command``: any program speaking the JSON-lines protocol (``docs/protocol.md``), started
      once and kept warm; ``name`` picks one of the pipelines it serves (``old``, ``new``...).

    ``root`` is the folder relative paths were resolved against (the suite folder), and keys a
    pipeline to its suite: two suites whose modules share a name never run each other's code.
    """

    kind: Literal["python", "command", "client"]
    call: str | None = None
    command: tuple[str, ...] = ()
    name: str = ""
    python: str | None = None
    cwd: str | None = None
    path: tuple[str, ...] = ()
    setup: str | None = None
    start_timeout_s: float = 60.0
    env: tuple[tuple[str, str], ...] = ()
    root: str | None = None
    requirements: tuple[str, ...] = ()
    """A released version as a side: the package first, then extra requirements; the harness
    provisions them into ``python``'s environment (``harness._provision``) before the first call."""
    find_links: tuple[str, ...] = ()
    index: bool = True
    base_url_env: str | None = None
    """A ``client`` side: the variable that points the client at the capture server (``harness._pipeline.capture``)."""
    base_path: str = ""
    observe: Literal["body", "request"] = "body"
    """A ``client`` side: observe the request body (judged by the rejection rules), or the whole
    request (method, path, query, headers without credentials or the ephemeral host, body)."""
    gateway: str = ""
    """A ``client`` side that is a gateway started on loopback (``litellm-proxy``) with its upstream at
    the capture server (``harness._pipeline.capture.gateway``); its package is provisioned from ``requirements``."""
    transport: str = ""
    """A ``client`` side run in this process: ``call`` gets a MockTransport of this module
    (``httpx`` or ``httpx2``) that records and answers like the capture server
    (``harness._pipeline.capture.transport``)."""

    @property
    def in_process(self) -> bool:
        return self.kind == "python" and self.python is None

    def label(self) -> str:
        """One line naming the pipeline, for reports and errors (no absolute paths)."""
        if self.kind == "client":
            if self.gateway:
                return f"gateway {self.gateway} from {self.requirements[0]}"
            return f"client {self.call} on {self.transport}" if self.transport else f"client {' '.join(self.command)}"
        if self.kind == "command":
            argv = " ".join(self.command)
            return f"command {argv}" + (f" [{self.name}]" if self.name else "")
        if self.requirements:
            return f"{self.call} in {self.requirements[0]}"
        if self.python:
            return f"{self.call} in {_shown_path(self.python, self.root)}"
        return str(self.call)


def _shown_path(path: str, root: str | None) -> str:
    """A path as a report may show it: relative to the suite folder's parent when inside it, else
    its last two parts (``bin/python3.11``), never absolute (two clones give one report)."""
    if not path.startswith("/"):
        return path
    if root:
        base = root.rstrip("/").rsplit("/", 1)[0]
        if path.startswith(base + "/"):
            return path[len(base) + 1:]
    return "/".join(path.rstrip("/").split("/")[-2:])


@dataclass(frozen=True)
class Subject:
    """A pair of pipelines under test.

    ``old``/``new``/``refeed`` name them in one line (``module:function`` for in-process Python);
    ``pipelines`` holds declared ``PipelineSpec``s by role when a side is not an in-process
    callable (a command, another interpreter). ``pipeline(side)`` is the one way to ask.
    """

    name: str
    old: str
    new: str
    wires: frozenset[str]
    description: str = ""
    refeed: str | None = None
    input_keys: frozenset[str] = frozenset()
    output: Literal["request-body", "value"] = "request-body"
    input_schema: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    """A JSON Schema for the case's ``input:`` mapping, checked at load time with file and line."""
    pipelines: Mapping[str, PipelineSpec] = field(default_factory=dict, hash=False, compare=False)

    def pipeline(self, role: str) -> PipelineSpec:
        """The spec of ``old``, ``new`` or ``refeed``."""
        declared = self.pipelines.get(role)
        if declared is not None:
            return declared
        call = getattr(self, role)
        if not call:
            raise LookupError(f"subject {self.name} has no {role} pipeline")
        return PipelineSpec(kind="python", call=call)

    @property
    def in_process(self) -> bool:
        """Every side an in-process Python callable (what operator mutation needs)."""
        return all(self.pipeline(s).in_process for s in ("old", "new"))


@dataclass(frozen=True)
class Allowance:
    """A divergence declared above the case (suite.yaml or a lane's ``diverges:``): old and new
    may differ at ``paths`` on every case it covers; ``source`` says where it was declared."""

    paths: tuple[str, ...]
    why: str
    source: str = ""


@dataclass(frozen=True)
class Expectation:
    """What old vs new may look like on one lane: ``same`` bytes, ``same-value``, or ``diverges``;
    ``above`` holds the suite's and the lane's allowances that cover this case."""

    kind: Literal["same", "same-value", "diverges"] = "same"
    paths: tuple[str, ...] = ()
    why: str = ""
    old_raises: str | None = None
    new_raises: str | None = None
    above: tuple[Allowance, ...] = ()


@dataclass(frozen=True)
class PinSpec:
    """One declared check on the new pipeline's output (see ``harness._pins.declarative``)."""

    name: str
    kind: str
    lanes: tuple[str, ...]
    params: Mapping[str, Any]
    why: str = ""
    catches_old: bool = False
    line: int | None = None


@dataclass(frozen=True)
class Case:
    """One named input with its expectations, from a case file."""

    id: str
    subject: str
    file: str
    line: int | None
    title: str
    input: Mapping[str, Any]
    lanes: tuple[str, ...]
    expect: Mapping[str, Expectation]
    checks: frozenset[str]
    pins: tuple[PinSpec, ...]
    rejections: tuple[Mapping[str, Any], ...] = ()
    above: Mapping[str, tuple[Allowance, ...]] = field(default_factory=dict)
    """Per lane: the divergences declared above the case (suite.yaml, the lane) that cover it."""

    def expectation(self, lane_id: str) -> Expectation:
        exp = self.expect.get(lane_id) or self.expect.get("*") or Expectation()
        above = self.above.get(lane_id, ())
        return replace(exp, above=above) if above else exp


@dataclass(frozen=True)
class Suite:
    """A loaded suite folder. ``extras`` carries sections later stages own (rules, ledgers...)."""

    root: str
    name: str
    lanes: Mapping[str, Lane]
    subjects: Mapping[str, Subject]
    cases: tuple[Case, ...]
    settings: Settings = field(default_factory=Settings)
    """suite.yaml, parsed once (a plain mapping given here is parsed into one)."""
    extras: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.settings, Settings):
            object.__setattr__(self, "settings", Settings.parse(self.settings))

    def case(self, case_id: str) -> Case:
        """The case with this id (KeyError if none): a dict lookup, built on first use."""
        return self._by_id[case_id]

    @cached_property
    def _by_id(self) -> dict[str, Case]:
        # Built once on first use: a scan per lookup made the pin stage quadratic in cases.
        return {c.id: c for c in self.cases}


@dataclass(frozen=True)
class ErrorInfo:
    """What a pipeline raised (or how it died): type name, message, last traceback line."""

    type: str
    message: str
    where: str = ""


class _Unset:
    def __repr__(self) -> str:
        return "<not decoded>"

    def __reduce__(self) -> str:
        return "_UNSET"  # one sentinel per process, also after unpickling


_UNSET: Any = _Unset()


class Observation:
    """One pipeline run on one case x lane x side. Treat as frozen.

    ``value`` is decoded from ``wire`` on first use: workers send only the bytes, so a run that
    never looks at a value (most identical pairs) never pays for decoding it twice.
    """

    __slots__ = ("_value", "answer", "case_id", "duration_s", "error", "lane_id", "outcome", "side", "wire")

    def __init__(self, case_id: str, lane_id: str, side: Side, outcome: Outcome, wire: bytes | None = None,
                 value: Any = _UNSET, error: ErrorInfo | None = None, duration_s: float = 0.0,
                 answer: Mapping[str, Any] | None = None) -> None:
        self.case_id = case_id
        self.lane_id = lane_id
        self.side = side
        self.outcome = outcome
        self.wire = wire
        self._value = value
        self.error = error
        self.duration_s = duration_s
        # what a client side received for its request (a gateway's envelope, harness._pipeline.capture.envelope)
        self.answer = answer

    @property
    def value(self) -> Any:
        if self._value is _UNSET:
            self._value = None if self.wire is None else json.loads(self.wire)
        return self._value

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled without the value: the wire bytes carry it, half the bytes on a worker's pipe.
        return (Observation, (self.case_id, self.lane_id, self.side, self.outcome, self.wire, _UNSET,
                              self.error, self.duration_s, self.answer))

    def __repr__(self) -> str:
        return (f"Observation({self.case_id!r}, {self.lane_id!r}, {self.side!r}, {self.outcome!r}, "
                f"{len(self.wire) if self.wire is not None else None} bytes, error={self.error!r})")


@dataclass(slots=True)  # not frozen: a frozen dataclass's constructor cost a fifth of a unit's glue
class Verdict:
    """The comparison of old and new on one case x lane, with its declared checks. Treat as
    frozen (``dataclasses.replace`` for a changed one): the build makes one per unit, and a
    frozen dataclass sets each field through ``object.__setattr__``, 1.1 us against 0.2 us."""

    case_id: str
    lane_id: str
    kind: VerdictKind
    failed: bool
    detail: str = ""
    why: str = ""
    paths: tuple[str, ...] = ()
    unexpected_paths: tuple[str, ...] = ()
    checks: Mapping[str, str] = field(default_factory=dict)
    """check name -> "held" | a sentence saying how it failed."""
