"""Accepting observed change on purpose (``harness bless``): a finished run's unexpected
divergences become declared ones in their case files, and golden files take the new output.

A blessed divergence is written with ``why: TODO``, which the loader refuses (exit 2, naming the
file and line) until a person writes the reason: accepting a change is a decision, and the case
file is where it is recorded. Lanes of a case that take the same declaration share one block, so
there is one reason to write per change: ``"*"`` when they are every lane the case ran on, else
one block on the first of them (a YAML anchor) that the others name (aliases).

Only the case's ``expect`` block is rewritten (rendered by ruamel.yaml's round trip, which keeps
its comments and its entries' flow or block style); every other line of the file stays byte for
byte as it was.

Golden files are the ``file`` of ``equals`` pins: they get the new pipeline's output (what the
pin's ``select`` picks) from the run's saved evidence.
"""

from __future__ import annotations

import fnmatch
import io
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from harness._common.files import confined
from harness._common.selectors import select
from harness._errors import ConfigError, InputError, Place
from harness._evidence.runs import run_file

__all__ = ["TODO", "Blessed", "bless_divergences", "blessable", "case_lanes", "update_golden"]

TODO = "TODO"


@dataclass(frozen=True)
class Blessed:
    """One edit: where, what, and the sentence printed for it."""

    file: Path
    line: int | None
    case: str
    lane: str
    what: str

    @property
    def where(self) -> str:
        """``file:line``, or the file alone when the edit has no line (a golden file)."""
        return f"{self.file}:{self.line}" if self.line else str(self.file)


def blessable(report: Mapping[str, Any], case: str | None, lanes: Sequence[str]) -> list[Mapping[str, Any]]:
    """Failing divergences (both sides built, differing outside what is declared) of the chosen
    cases (an id or glob; None: every case) on the chosen lanes (globs; none: every lane)."""
    _known(report, case)
    return [r for r in report["differential"] if r["failed"] and r["verdict"] in ("unexpected", "reordered")
            and _chosen(r["case"], case) and _on(r["lane"], lanes)]


def _known(report: Mapping[str, Any], case: str | None) -> None:
    """A case glob that matches no case of the run is a bad argument, not "nothing to bless"."""
    if case is not None and not any(fnmatch.fnmatchcase(r["case"], case) for r in report["differential"]):
        raise ConfigError("CASE", case, "a case of the run (see report.json's differential)")


def _chosen(case_id: str, case: str | None) -> bool:
    """``case_id`` matches the glob ``case``, or no case was named."""
    return case is None or fnmatch.fnmatchcase(case_id, case)


def _on(lane: str, lanes: Sequence[str]) -> bool:
    """``lane`` matches one of the globs ``lanes``, or none was given."""
    return not lanes or any(fnmatch.fnmatchcase(lane, g) for g in lanes)


def _yaml() -> YAML:
    rt = YAML(typ="rt")
    rt.preserve_quotes = True
    rt.width = 4096  # never re-wrap a long line the author wrote on one
    rt.indent(mapping=2, sequence=4, offset=2)
    return rt


def _case_doc(suite: Path, rel: str) -> tuple[Path, str, Any]:
    """(path, text, round-trip document) of a case file the run names, as it is now: it may have
    changed since the run, so it must still lie inside the suite (bless writes to it) and still be
    a case file, or the user is told which file and why before anything is written."""
    path = suite / rel
    confined(path, [suite.resolve()], Place(rel), rel)
    text = path.read_text(encoding="utf-8")
    doc = _round_trip(rel, text)
    if not isinstance(doc, Mapping) or not isinstance(doc.get("cases", []), list):
        raise InputError(Place(rel, None, "cases"), "a case file (a mapping with a list of cases)",
                         f"{type(doc).__name__} (it changed since the run?)")
    return path, text, doc


def _round_trip(rel: str, text: str) -> Any:
    """``text`` as ruamel's round-trip document; malformed YAML is an InputError at its line."""
    try:
        return _yaml().load(text)
    except YAMLError as exc:  # a MarkedYAMLError knows where, a ReaderError does not
        mark = getattr(exc, "problem_mark", None)
        raise InputError(Place(rel, mark.line + 1 if mark else None), "well-formed YAML",
                         str(getattr(exc, "problem", None) or exc)) from None


def _index(doc: Any, case_id: str, path: Path) -> int:
    for i, raw in enumerate(doc.get("cases", [])):
        if isinstance(raw, Mapping) and raw.get("id") == case_id:
            return i
    raise ConfigError("CASE", case_id, f"a case with this id in {path} (a case without an id cannot be blessed; "
                      "give it one)")


def _diverges(entry: Any) -> Mapping[str, Any]:
    """A lane entry's ``diverges`` block, or nothing when it has none."""
    declared = entry.get("diverges") if isinstance(entry, Mapping) else None
    return declared if isinstance(declared, Mapping) else {}


def _entry(old: Any, star: Any, paths: list[str]) -> tuple[CommentedMap, str]:
    """The lane's new ``diverges`` entry, keeping what was declared before (its paths; its old
    reason in a comment), and a sentence for the user."""
    base = old if old is not None else star
    was = _diverges(base)
    merged = list(dict.fromkeys([*(str(p) for p in was.get("paths", [])), *paths]))
    body = CommentedMap()
    body["why"] = TODO
    body["paths"] = CommentedSeq(merged)
    body["paths"].fa.set_flow_style()
    for key in ("old_raises", "new_raises"):
        if key in was:
            body[key] = was[key]
    if was.get("why"):
        body.yaml_add_eol_comment(f"was: {' '.join(str(was['why']).split())}"[:200], "why")
    entry = CommentedMap()
    entry["diverges"] = body
    return entry, f"diverges at {', '.join(merged)} (why: TODO, write the reason)"


def _trimmed(lines: list[str], start: int, end: int) -> int:
    """``end`` moved back over blank and comment-only lines: they belong to what follows."""
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end


def _case_end(doc: Any, index: int, lines: list[str]) -> int:
    cases = doc["cases"]
    return cases.lc.item(index + 1)[0] if index + 1 < len(cases) else len(lines)


def _expect_span(doc: Any, index: int, lines: list[str]) -> tuple[int, int, int]:
    """(first line, end line, column) of case ``index``'s expect block; an empty span at the end of
    the case when it has none."""
    raw = doc["cases"][index]
    keys = list(raw)
    if "expect" not in raw:
        column = raw.lc.key(keys[0])[1]
        end = _trimmed(lines, raw.lc.line, _case_end(doc, index, lines))
        return end, end, column
    line, column = raw.lc.key("expect")
    later = keys[keys.index("expect") + 1:]
    end = raw.lc.key(later[0])[0] if later else _case_end(doc, index, lines)
    return line, _trimmed(lines, line, end), column


def _render(key: str, value: Any, column: int) -> list[str]:
    """``key: value`` as block YAML lines starting at ``column``; an ``_Alias`` as ``key: *name``."""
    out = io.StringIO()
    holder = CommentedMap()
    holder[key] = "ALIAS" if isinstance(value, _Alias) else value
    _yaml().dump(holder, out)
    lines = out.getvalue().splitlines()
    if isinstance(value, _Alias):
        lines = [lines[0].removesuffix("ALIAS") + f"*{value}"]
    return [" " * column + line + "\n" for line in lines]


def _edit(lines: list[str], doc: Any, index: int, lane: str, entry: CommentedMap) -> list[str]:
    """The file's lines with ``lane``'s entry in case ``index``'s expect written in: the lane's
    old entry replaced, or the entry added after the others (a flow-style or missing expect is
    written out whole, in block style)."""
    first, end, column = _expect_span(doc, index, lines)
    expect = doc["cases"][index].get("expect")
    if expect is None or expect.fa.flow_style() or not len(expect):
        merged = CommentedMap(expect or {})
        merged[lane] = entry
        return lines[:first] + _render("expect", merged, column) + lines[end:]
    return _in_block(lines, expect, end, lane, entry)


def _in_block(lines: list[str], expect: CommentedMap, end: int, lane: str, entry: CommentedMap) -> list[str]:
    """The lines with ``lane``'s entry written into a block-style expect ending at line ``end``."""
    keys = list(expect)
    column = expect.lc.key(keys[0])[1]
    if lane not in expect:
        return lines[:end] + _render(lane, entry, column) + lines[end:]
    at = expect.lc.key(lane)[0]
    later = keys[keys.index(lane) + 1:]
    stop = _trimmed(lines, at, expect.lc.key(later[0])[0] if later else end)
    return lines[:at] + _render(lane, entry, column) + lines[stop:]


def case_lanes(report: Mapping[str, Any]) -> dict[tuple[str, str], list[str]]:
    """Every lane each case (by file and id) ran on, when the run ran every lane (no ``--lane``):
    what ``"*"`` may stand for. A lane-filtered run says nothing about the lanes it left out."""
    if report.get("options", {}).get("lanes"):
        return {}
    out: dict[tuple[str, str], list[str]] = {}
    for r in report["differential"]:
        out.setdefault((r["file"], r["case"]), []).append(r["lane"])
    return out


def bless_divergences(suite: Path, rows: Sequence[Mapping[str, Any]],
                      every: Mapping[tuple[str, str], Sequence[str]] | None = None) -> list[Blessed]:
    """Write each row's differing paths into its case file as a declared divergence of its lane.
    Lanes of one case whose entries come out the same share one block: ``"*"`` when they are all
    of ``every[(file, case)]`` and none has an entry of its own, else an anchored block and
    aliases. One edit at a time (each reads the file afresh, so line positions stay current)."""
    done: list[Blessed] = []
    for (rel, case), picked in _by_case(rows).items():
        path, _text, doc = _case_doc(suite, rel)
        expect = doc["cases"][_index(doc, case, path)].get("expect") or {}
        for lanes, entry, said in _shared(expect, picked):
            if len(lanes) > 1 and every and set(lanes) == set(every.get((rel, case), ())) \
                    and not any(lane in expect for lane in lanes):
                _write(path, rel, case, "*", entry)
                done.append(Blessed(path, None, case, "*", said))
            else:
                _write_shared(path, rel, case, _holder_first(expect, lanes), entry)
                done.append(Blessed(path, None, case, ", ".join(lanes), said))
    return [_with_line(b) for b in done]


def _by_case(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], list[Mapping[str, Any]]]:
    out: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in rows:
        out.setdefault((row["file"], row["case"]), []).append(row)
    return out


def _shared(expect: Any, rows: list[Mapping[str, Any]]) -> list[tuple[list[str], CommentedMap, str]]:
    """The rows' lanes grouped by the entry each would get (paths, what it raised, the old reason)."""
    groups: dict[str, tuple[list[str], CommentedMap, str]] = {}
    for row in rows:
        entry, said = _entry(expect.get(row["lane"]), expect.get("*"), list(row["unexpected_paths"]) or ["$"])
        key = "".join(_render("x", entry, 0))
        groups.setdefault(key, ([], entry, said))[0].append(row["lane"])
    return list(groups.values())


def _holder_first(expect: Any, lanes: list[str]) -> list[str]:
    """``lanes`` with the one that will hold the anchor first: the earliest with an entry in the
    file (an entry is rewritten where it stands, a new one added at the end), so the anchor comes
    before every alias of it."""
    placed = [key for key in expect if key in lanes]
    return [*placed[:1], *(lane for lane in lanes if lane not in placed[:1])]


def _write(path: Path, rel: str, case: str, key: str, value: Any) -> None:
    """One entry of the case's expect written (the file read afresh); an anchored entry it
    replaces first has its aliases in this expect written out as copies, so none is left dangling."""
    text = path.read_text(encoding="utf-8")
    doc = _round_trip(rel, text)
    index = _index(doc, case, path)
    expect = doc["cases"][index].get("expect") or {}
    old = expect.get(key)
    sharing = [k for k in expect if expect[k] is old] if isinstance(old, Mapping) else []
    aliases = sharing[1:] if sharing[:1] == [key] else []  # the first holds the anchor, the rest name it
    if aliases:
        copy = CommentedMap(old)  # a plain copy: no anchor
        for alias in aliases:
            _write(path, rel, case, alias, copy)
        _write(path, rel, case, key, value)
        return
    lines = _edit(text.splitlines(keepends=True), doc, index, key, value)
    path.write_text("".join(lines), encoding="utf-8")


def _write_shared(path: Path, rel: str, case: str, lanes: list[str], entry: CommentedMap) -> None:
    """``entry`` on the first lane, anchored, and an alias of it on each other lane."""
    if len(lanes) == 1:
        _write(path, rel, case, lanes[0], entry)
        return
    name = _anchor_name(path.read_text(encoding="utf-8"))
    entry.yaml_set_anchor(name, always_dump=True)
    _write(path, rel, case, lanes[0], entry)
    for lane in lanes[1:]:
        _write(path, rel, case, lane, _Alias(name))


class _Alias(str):
    """An alias of an anchored entry, written as ``*name`` (ruamel cannot dump a lone alias)."""

    __slots__ = ()


def _anchor_name(text: str) -> str:
    n = 1
    while f"&blessed-{n}" in text:
        n += 1
    return f"blessed-{n}"


def _with_line(item: Blessed) -> Blessed:
    """The case's line in the file as it is after every edit."""
    doc = _yaml().load(item.file.read_text(encoding="utf-8"))
    line = doc["cases"].lc.item(_index(doc, item.case, item.file))[0] + 1
    return Blessed(item.file, line, item.case, item.lane, item.what)


def _golden_value(folder: Path, report: Mapping[str, Any], case: str, lane: str, selector: str | None) -> Any:
    value = json.loads(run_file(folder, _new_body(report, case, lane), "evidence.new").read_text(encoding="utf-8"))
    picked = [v for _, v in select(value, selector)] if selector else [value]
    return picked[0] if len(picked) == 1 else picked


def _new_body(report: Mapping[str, Any], case: str, lane: str) -> str:
    """The run's link to the new pipeline's body for ``case`` on ``lane``."""
    row = next((r for r in report["differential"] if r["case"] == case and r["lane"] == lane), None)
    link = row.get("evidence", {}).get("new") if row else None
    if not link:
        raise ConfigError("--update-golden", f"{case} on {lane}", "a run with the new pipeline's body saved for it")
    return str(link)


def _write_golden(path: Path, value: Any) -> None:
    if path.suffix == ".json":
        path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    else:
        path.write_text(yaml.safe_dump(value, sort_keys=False, allow_unicode=True), encoding="utf-8")


def update_golden(suite: Path, folder: Path, report: Mapping[str, Any], case: str | None,
                  lanes: Sequence[str]) -> list[Blessed]:
    """Rewrite the file of every ``equals`` pin with a ``file`` of the chosen cases from the run's
    new bodies. Lanes that would write different contents are refused: one file, one truth."""
    done: list[Blessed | None] = []
    for path, raw, ran in _chosen_cases(suite, report, case):
        golden = _Golden(path, folder, report, raw["id"], ran, lanes)
        done.extend(golden.bless(pin) for pin in _file_pins(raw))
    return [d for d in done if d is not None]


def _chosen_cases(suite: Path, report: Mapping[str, Any], case: str | None) -> Iterator[
        tuple[Path, Mapping[str, Any], list[str]]]:
    """(case file, the case as written, the lanes it ran on) for each chosen case of the run."""
    for rel, ran in _ran(report).items():
        path, _text, doc = _case_doc(suite, rel)
        for raw in doc.get("cases", []):
            if isinstance(raw, Mapping) and raw.get("id") in ran and _chosen(raw["id"], case):
                yield path, raw, ran[raw["id"]]


def _ran(report: Mapping[str, Any]) -> dict[str, dict[str, list[str]]]:
    """The lanes each case ran on, by case file."""
    ran: dict[str, dict[str, list[str]]] = {}
    for r in report["differential"]:
        ran.setdefault(r["file"], {}).setdefault(r["case"], []).append(r["lane"])
    return ran


def _file_pins(raw: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [p for p in raw.get("pins", []) if p.get("kind") == "equals" and "file" in p]


@dataclass(frozen=True)
class _Golden:
    """One case's ``equals`` pins with a file, rewritten from the run's new bodies."""

    case_file: Path
    folder: Path
    report: Mapping[str, Any]
    case: str
    ran: list[str]
    lanes: Sequence[str]

    def _chosen(self, pin: Mapping[str, Any]) -> list[str]:
        return [ln for ln in pin.get("lanes") or self.ran if ln in self.ran and _on(ln, self.lanes)]

    def bless(self, pin: Mapping[str, Any]) -> Blessed | None:
        values = {json.dumps(_golden_value(self.folder, self.report, self.case, ln, pin.get("select")),
                             sort_keys=True): ln for ln in self._chosen(pin)}
        if len(values) > 1:
            raise ConfigError("--update-golden", f"{self.case}::{pin.get('name')}",
                              f"lanes that agree on one output (these differ: {', '.join(values.values())}); "
                              "choose one with --lane")
        if not values:
            return None
        target = self.case_file.parent / pin["file"]
        _write_golden(target, json.loads(next(iter(values))))
        return Blessed(target, None, self.case, next(iter(values.values())),
                       f"golden file of pin {pin.get('name')} rewritten")
