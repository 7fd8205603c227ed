"""What each lane ships for an imported document's tools: a subject's pipelines over them.

Used by ``harness openapi DOC --lanes SUITE`` and the corpus run: every tool of the import goes
through the subject's old and new pipelines on every lane of the subject's wires, in one
request per lane and side (one per tool only when the batch raises, so one bad tool cannot
hide the rest). For each tool whose imported input schema has a root composition, the shipped
schema is classified: ``kept`` (the root still carries oneOf/anyOf/allOf), ``narrowed`` (it
does not), ``missing`` (the body carries no schema for it) or ``error`` (the pipeline raised).
With the suite's rejection rules, ``known-rejected`` counts the composed tools on which a rule
of a validator the lane fronts fires (the rule names are kept as examples); ``harness run``'s
rejection stage, with receipts, stays the authority. Runs in this process: it is a view for
people, not the isolated build stage.
"""

from __future__ import annotations

import pickle
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness._common.schemacheck import check
from harness._common.yamlsafe import load_document
from harness._errors import InputError, Place
from harness._model import Lane, Subject
from harness._plugins import load_callable
from harness._reject.match import fire
from harness._reject.rules import RuleSet
from harness._sources.openapi.operations import root_composition

__all__ = ["LaneShipping", "load_lanes", "rules_beside", "ship"]

_SCHEMA_PLACES = (("input_schema",), ("function", "parameters"), ("parameters",))
_REQUEST_FIELDS = ("name", "description", "input_schema")
_TOOL_INDEX = re.compile(r"^tools\[(\d+)\]")
Bodies = list[tuple[list[int], Any]]  # (tool index of each tools[] entry, body)


@dataclass
class LaneShipping:
    """One lane x side: how many composed tools shipped each way, and a few names of each."""

    lane: str
    side: str
    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    rules: set[str] = field(default_factory=set)

    def add(self, verdict: str, name: str, rules: set[str]) -> None:
        """One composed tool: how it shipped, and the rules that fire on it (if any)."""
        self.counts[verdict] += 1
        names = self.examples.setdefault(verdict, [])
        if len(names) < 3:
            names.append(name)
        if rules:
            self.counts["known-rejected"] += 1
            self.rules |= rules

    def as_dict(self) -> dict[str, Any]:
        return {"lane": self.lane, "side": self.side, "counts": dict(sorted(self.counts.items())),
                "examples": self.examples, "rules": sorted(self.rules)}


def load_lanes(where: Path) -> list[Lane]:
    """Lanes from a lanes file, or from ``lanes.yaml`` and ``lanes/*.yaml`` under a suite folder."""
    files = [where] if where.is_file() else sorted([*where.glob("lanes.yaml"), *where.glob("lanes/*.yaml")])
    if not files:
        raise InputError(Place(str(where)), "a lanes file or a suite folder holding lanes", "none")
    lanes: list[Lane] = []
    for path in files:
        doc = load_document(path)
        check(doc, "lanes")
        for raw in doc.value["lanes"]:
            lanes.append(Lane(
                id=raw["id"], wire=raw["wire"], provider=raw["provider"],
                base_url=raw.get("base_url"), model=raw.get("model"),
                options=raw.get("options", {}), fronts=tuple(raw.get("fronts", ())), file=str(path),
            ))
    return lanes


def _schema_of(entry: Any) -> Any:
    for steps in _SCHEMA_PLACES:
        node = entry
        for step in steps:
            node = node.get(step) if isinstance(node, dict) else None
        if node is not None:
            return node
    return None


def _classify(shipped: Any) -> str:
    """What a composed tool shipped as (``shipped``: its schema, or what the pipeline raised)."""
    if isinstance(shipped, Exception):
        return "error"
    if not isinstance(shipped, dict):
        return "missing"
    return "kept" if root_composition(shipped) else "narrowed"


def _fresh(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools as a request carries them (name, description, input_schema), copied per call
    (sharing kept, as the build stage's pickled inputs keep it): a pipeline that edits a schema
    in place must not change what the next lane or side receives."""
    plain = [{k: t[k] for k in _REQUEST_FIELDS} for t in tools]
    copied: list[dict[str, Any]] = pickle.loads(pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL))
    return copied


def _tools_of(body: Any) -> list[Any] | None:
    shipped = body.get("tools") if isinstance(body, dict) else None
    return shipped if isinstance(shipped, list) else None


def _shipped(pipeline: Any, tools: list[dict[str, Any]], lane: Lane) -> tuple[list[Any], Bodies]:
    """The shipped schema per tool (an Exception where the pipeline raised for that tool)."""
    try:
        body = pipeline({"tools": _fresh(tools)}, lane.as_dict())
        shipped = _tools_of(body)
        if shipped is not None and len(shipped) == len(tools):
            return [_schema_of(entry) for entry in shipped], [(list(range(len(tools))), body)]
    except Exception:  # a pipeline's failure is an outcome; retry tool by tool to place it
        pass
    return _one_by_one(pipeline, tools, lane)


def _one_by_one(pipeline: Any, tools: list[dict[str, Any]], lane: Lane) -> tuple[list[Any], Bodies]:
    """``_shipped`` with one request per tool, so one bad tool cannot hide the rest."""
    out: list[Any] = []
    bodies: Bodies = []
    for i, tool in enumerate(tools):
        try:
            body = pipeline({"tools": _fresh([tool])}, lane.as_dict())
            entries = body.get("tools") if isinstance(body, dict) else None
            out.append(_schema_of(entries[0]) if entries else None)
            bodies.append(([i], body))
        except Exception as exc:  # recorded, not raised: the run goes on
            out.append(exc)
    return out, bodies


def _only(bodies: Bodies, wanted: set[int]) -> Bodies:
    """The bodies cut down to the wanted tools: rules walk every subschema, so this is the cost."""
    out: Bodies = []
    for indices, body in bodies:
        tools = _tools_of(body)
        keep = [k for k, i in enumerate(indices) if i in wanted]
        if keep and tools is not None:
            out.append(([indices[k] for k in keep], {**body, "tools": [tools[k] for k in keep]}))
    return out


def _rejected(rules: RuleSet, lane: Lane, bodies: Bodies) -> dict[int, set[str]]:
    """Tool index -> ids of the rules (of the validators the lane fronts) that fire on it."""
    found: dict[int, set[str]] = {}
    for rule in rules.for_lane(lane):
        for indices, body in bodies:
            for hit in fire(rule, body):
                m = _TOOL_INDEX.match(hit.location)
                if m:
                    found.setdefault(indices[int(m.group(1))], set()).add(rule.id)
    return found


def ship(tools: list[dict[str, Any]], subject: Subject, lanes: list[Lane],
         sides: tuple[str, ...] = ("old", "new"), rules: RuleSet | None = None) -> list[LaneShipping]:
    """Per lane of the subject's wires and per side: what the composed tools ship as."""
    composed = [i for i, t in enumerate(tools) if root_composition(t["input_schema"])]
    return [_row(load_callable(getattr(subject, side)), lane, side, tools, composed, rules)
            for lane in lanes if lane.wire in subject.wires for side in sides]


def _row(pipeline: Any, lane: Lane, side: str, tools: list[dict[str, Any]], composed: list[int],
         rules: RuleSet | None) -> LaneShipping:
    """One lane x side: the tools through ``pipeline``, each composed one classified."""
    shipped, bodies = _shipped(pipeline, tools, lane)
    hits = _rejected(rules, lane, _only(bodies, set(composed))) if rules is not None else {}
    row = LaneShipping(lane.id, side)
    for i in composed:
        row.add(_classify(shipped[i]), tools[i]["name"], hits.get(i, set()))
    row.counts["errors_any_tool"] = sum(isinstance(s, Exception) for s in shipped)
    return row


def rules_beside(where: Path) -> RuleSet | None:
    """The rejection rules of the suite folder ``where`` (its suite.yaml ``rules`` globs), if any."""
    if not where.is_dir():
        return None
    from harness._reject.rules import rules_of_suite

    suite_file = where / "suite.yaml"
    settings: dict[str, Any] = {}
    if suite_file.is_file():  # checked as the suite loader checks it: `rules: 5` is one error
        doc = load_document(suite_file)
        check(doc, "suite")
        settings = doc.value
    rules = rules_of_suite(where, settings)
    return rules if rules.rules else None
