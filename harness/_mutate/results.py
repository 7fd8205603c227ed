"""From the engine's raw rows to the report section: statuses, the matrix, claims, per-pin kills.

Pure: the same plan, baseline and rows give the same section, byte for byte, except under
``timing`` (wall-clock durations are kept there and nowhere else).

Compact: every pin's node id appears once, in ``pins.ids``; mutants, claims and the per-pin table
name pins by their index there, and a mutant's ``covered_by`` is the index of its set of covering
pins in ``pin_sets`` (mutants of one function share one). A bundled-suite section is ~0.7 MB
instead of ~13 MB, and still complete: ``expand(section)`` gives back every list of node ids.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast

from harness._errors import ConfigError
from harness._mutate.section import MutationSection
from harness._pins.killed_by import group_of, groups, resolve_all

__all__ = ["SECTION_VERSION", "STATUSES", "build_section", "compact", "expand", "expected_survivor", "read_rows"]

SECTION_VERSION = 2
STATUSES = ("killed", "survived", "timeout", "unviable", "no_coverage", "equivalent", "pending")
_KIND_ORDER = {"declared": 0, "operator": 1}


def read_rows(paths: Iterable[Path]) -> dict[str, dict[str, Any]]:
    """Rows by mutant key from results.jsonl files; a torn last line (interrupted write) is skipped."""
    rows: dict[str, dict[str, Any]] = {}
    for path in paths:
        if path.is_file():
            rows.update((row["key"], row) for row in _rows_in(path))
    return rows


def _rows_in(path: Path) -> Iterator[dict[str, Any]]:
    """The rows of one results.jsonl, in order, without the lines that do not parse to a row."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError("results file", str(path), "UTF-8 text, one JSON row a line") from None
    for line in text.splitlines():
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, RecursionError):  # a torn or hostile line is no row
            continue
        if isinstance(row, dict) and "key" in row:
            yield row


def _status(m: Mapping[str, Any], row: Mapping[str, Any] | None, red: list[str], timed: list[str]) -> str:
    if row is None:
        return "pending"
    if row.get("unviable"):
        return "unviable"
    if not row.get("pins"):
        return "no_coverage"  # an output check alone is not a pin
    return _pins_status(m, row, red, timed)


def _pins_status(m: Mapping[str, Any], row: Mapping[str, Any], red: list[str], timed: list[str]) -> str:
    """The status of a mutant whose covering pins ran: a red pin kills it, a pin out of time
    detects it, else it survived (or held, for a declared equivalent whose outputs are unchanged)."""
    if red:
        return "killed"
    if timed:
        return "timeout"
    outputs = row.get("outputs") or {}
    if m.get("equivalent") and outputs.get("outcome", "passed") == "passed":
        return "equivalent"
    return "survived"  # including a declared equivalent whose outputs changed: no pin saw it


def _equivalent_claim(m: Mapping[str, Any], status: str, turned_red: list[str],
                      outputs: Mapping[str, Any] | None) -> dict[str, Any]:
    checked = outputs or {}
    result, note = _equivalent_verdict(status, turned_red, checked)
    out = {"claimed": [], "red": turned_red, "result": result, "note": note, "equivalent": m["equivalent"]}
    if checked.get("outcome") is not None:
        out["outputs"] = {"outcome": checked["outcome"], "differ": list(checked.get("differ", [])),
                          **{k: int(checked[k]) for k in ("cases", "calls") if k in checked}}
    return out


def _equivalent_verdict(status: str, turned_red: list[str], checked: Mapping[str, Any]) -> tuple[str, str]:
    """A declared equivalent's result and note: failed when its output check speaks against it;
    held (``equivalent``) only when outputs that reach it were compared and are identical;
    ``unchecked`` when nothing compared its outputs (no pin seeing it is not evidence)."""
    outcome = checked.get("outcome")
    if outcome not in (None, "passed"):
        unseen = "" if turned_red else "; no pin sees it"
        return "failed", f"declared equivalent, but {_outputs_changed(checked)}{unseen}"
    if status in ("equivalent", "no_coverage"):
        seen = "no pin distinguishes it" if status == "equivalent" else "no pin reaches it"
        if outcome == "passed":
            return "equivalent", f"{seen}; {_compared(checked)}"
        return "unchecked", (f"{seen}, and no output reaching it was compared (no case x lane output and no call "
                             "a pin makes reaches its function): the claim is not checked")
    return _EQUIVALENT_BY_STATUS.get(status, ("failed", f"declared equivalent but {status}"))


def _compared(checked: Mapping[str, Any]) -> str:
    """What an output check that passed compared (a row written before calls were compared: the cases)."""
    if "calls" not in checked:
        return "every case x lane output is byte-identical"
    parts = [f"{checked['cases']} case x lane output(s)" if checked.get("cases") else "",
             f"{checked['calls']} call(s) the pins make" if checked.get("calls") else ""]
    return "identical on " + " and ".join(p for p in parts if p)


# a declared equivalent's claim for the statuses that say nothing against it
_EQUIVALENT_BY_STATUS = {
    "pending": ("pending", "not run yet"),  # not run: nothing held yet (a merge missing its shard)
}


def _outputs_changed(checked: Mapping[str, Any]) -> str:
    """Why an output check (one that did not pass) speaks against a declared equivalent."""
    outcome = checked["outcome"]
    if outcome == "failed":
        where = ", ".join(checked.get("differ", [])[:5])
        what = "case x lane(s)" if "calls" not in checked else "output(s) (case x lanes, calls the pins make)"
        return f"the output differs on {checked.get('count', 0)} {what}: {where}"
    return f"the output check ended with {outcome} ({checked.get('detail', '')})"


def _claim(m: Mapping[str, Any], status: str, turned_red: list[str], claimed: list[str],
           excluded: set[str], outputs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    if m.get("equivalent"):
        return _equivalent_claim(m, status, turned_red, outputs)
    if m.get("survives"):
        return _survivor_claim(m, status, turned_red)
    green = _stayed_green(claimed, turned_red)
    result, note = _CLAIM_BY_STATUS.get(status) or _pins_verdict(claimed, turned_red, green, excluded)
    return {"claimed": claimed, "red": turned_red, "green": green, "result": result, "note": note}


def _survivor_claim(m: Mapping[str, Any], status: str, turned_red: list[str]) -> dict[str, Any]:
    """An expected survivor: held while no pin kills it; failed, loudly, once one does (the ledger
    is out of date: the escape is fixed, and its entry should say which pins kill it now)."""
    result, note = _SURVIVOR_BY_STATUS.get(status) or ("failed", f"declared to survive, but {status}")
    if status in ("killed", "timeout"):
        note = (f"declared to survive, but {len(turned_red)} pin(s) now kill it: update the ledger "
                "(killed_by: the pins that kill it)")
    return {"claimed": [], "red": turned_red, "result": result, "note": note, "survives": m["survives"]}


# an expected survivor's claim for the statuses that leave it surviving, or not run
_SURVIVOR_BY_STATUS = {
    "survived": ("survives", "survives, as the ledger expects"),
    "no_coverage": ("survives", "survives, as the ledger expects (no pin reaches it)"),
    "pending": ("pending", "not run yet"),
    "unviable": ("failed", "the mutant does not import"),
}


def expected_survivor(m: Mapping[str, Any]) -> bool:
    """A declared expected survivor that still survives: a known escape, not a new one."""
    return bool(m.get("claim", {}).get("result") == "survives")


def _stayed_green(claimed: list[str], turned_red: list[str]) -> list[str]:
    """The claimed pins that stayed green, judged per pin group: a pin spanning several lanes is
    red when any of its items is."""
    red_groups = {group_of(p) for p in turned_red}
    return [p for p in claimed if group_of(p) not in red_groups]


def _pins_verdict(claimed: list[str], turned_red: list[str], green: list[str], excluded: set[str]) -> tuple[str, str]:
    """A run mutant's claim judged on its pins: failed (a claimed pin stayed green), exact, or collateral."""
    if green:
        return "failed", _green_note(green, excluded)
    if {group_of(p) for p in turned_red} == {group_of(p) for p in claimed}:
        return "exact", "red on exactly its claimed pins"
    return "collateral", "claimed pins red, and others too"


def _green_note(green: list[str], excluded: set[str]) -> str:
    """Why a claim failed: pins it names stayed green (saying so when one already failed unmutated)."""
    stale = any(p in excluded for p in green)
    return "claimed pin(s) stayed green" + (" (failing on unmutated code)" if stale else "")


# a claim's result and note for the statuses where no pin ran
_CLAIM_BY_STATUS = {
    "pending": ("pending", "not run yet"),
    "unviable": ("failed", "the mutant does not import"),
}


def _mutant_entry(m: Mapping[str, Any], row: Mapping[str, Any] | None, nodeids: list[str], prefix: str,
                  excluded: set[str]) -> dict[str, Any]:
    got: Mapping[str, Any] = row or {}
    pins: Mapping[str, str] = got.get("pins", {})
    order = {n: i for i, n in enumerate(nodeids)}
    by_outcome = _by_outcome(pins, order)
    killed_by = _in_order([*by_outcome["failed"], *by_outcome["crash"]], order)
    timed = by_outcome["timeout"]
    status = _status(m, row, killed_by, timed)
    entry: dict[str, Any] = {
        "id": m["id"], "key": m["key"], "kind": m["kind"], "file": m["file"], "function": m["function"],
        "line": m["line"], "column": m["column"], "end_line": m["end_line"], "end_column": m["end_column"],
        "operator": m["operator"], "title": m["title"], "diff": m["diff"], "status": status,
        "killed_by": killed_by, "timed_out": timed,
        "crashed": by_outcome["crash"],
        "covered_by": _in_order(pins, order),
        "details": dict(sorted(got.get("details", {}).items())),
        "unviable": got.get("unviable"),
    }
    _row_extras(entry, got)
    if m["kind"] == "declared":
        claimed, _missing = resolve_all(m.get("claims", ()), nodeids, prefix)
        entry["ledger"] = m.get("ledger", "")
        entry["claim"] = _claim(m, status, _in_order({*killed_by, *timed}, order), claimed, excluded,
                                got.get("outputs"))
    return entry


def _by_outcome(pins: Mapping[str, str], order: Mapping[str, int]) -> defaultdict[str, list[str]]:
    """A row's pins by their outcome, each list in collection order."""
    out: defaultdict[str, list[str]] = defaultdict(list)
    for p in _in_order(pins, order):
        out[pins[p]].append(p)
    return out


def _in_order(pins: Iterable[str], order: Mapping[str, int]) -> list[str]:
    """``pins`` in collection order; a pin the baseline did not collect goes last."""
    return sorted(pins, key=lambda p: order.get(p, 1 << 30))


def _row_extras(entry: dict[str, Any], row: Mapping[str, Any]) -> None:
    if row.get("saved") is not None:  # pin runs decided without running them
        entry["saved"] = {k: int(v) for k, v in row["saved"].items()}
    if row.get("writes"):  # what the row wrote in its sandbox, beyond its own change
        entry["writes"] = list(row["writes"])


def _pin_table(mutants: list[dict[str, Any]], pins: list[str]) -> list[dict[str, Any]]:
    """One row per pin: a pin group (several lanes or parameters) is one row, named by its first
    item, with its group id and items; a mutant counts once for a group however many items it reds."""
    kills: Counter[str] = Counter()
    unique: defaultdict[str, list[str]] = defaultdict(list)
    for m in mutants:
        red = {group_of(p) for p in [*m["killed_by"], *m["timed_out"]]}
        kills.update(red)
        if len(red) == 1:
            unique[red.pop()].append(m["id"])
    return [_pin_row(g, items, kills[g], sorted(unique[g])) for g, items in groups(pins).items()]


def _pin_row(group: str, items: list[str], kills: int, unique: list[str]) -> dict[str, Any]:
    row: dict[str, Any] = {"pin": items[0], "kills": kills, "unique_kills": len(unique), "unique": unique}
    if len(items) > 1:
        row.update(group=group, items=items)
    return row


def build_section(plan: Mapping[str, Any], baseline: Mapping[str, Any], rows: Mapping[str, Mapping[str, Any]],
                  shards: list[str] | None = None, shards_missing: list[str] | None = None) -> MutationSection:
    """The compact section (pins by index); ``expand`` of it names them. ``shards_missing`` names
    the slices (``k/n``) a merge was not given: their mutants are ``pending``."""
    section = _full_section(plan, baseline, rows, shards)
    section["shards_missing"] = list(shards_missing or [])
    # the one place the section's JSON becomes its type: every key is set above, and the
    # schema tests (tests/unit/mutate) validate what is built here against mutation.schema.json
    return cast(MutationSection, compact(section))


_INDEXED = ("killed_by", "timed_out", "crashed")
_CLAIM_INDEXED = ("claimed", "red", "green")


def compact(section: Mapping[str, Any]) -> dict[str, Any]:
    """A full section with pins by index and each mutant's covering pins as a shared set (``pin_sets``)."""
    index = {p: i for i, p in enumerate(section["pins"]["ids"])}
    sets: dict[tuple[int, ...], int] = {}
    mutants = [_compact_mutant(m, index, sets) for m in section["mutants"]]
    pin_kills = [_renamed_kills(r, index.__getitem__) for r in section["pin_kills"]]
    return {**section, "mutants": mutants, "pin_sets": [list(s) for s in sets], "pin_kills": pin_kills}


def _compact_mutant(m: Mapping[str, Any], index: dict[str, int], sets: dict[tuple[int, ...], int]) -> dict[str, Any]:
    """A mutant with pins by index; its covering pins become the number of their set in ``sets``
    (mutants of one function share one), which it adds when new."""
    out = _renamed(m, index.__getitem__)
    out["covered_by"] = sets.setdefault(tuple(index[p] for p in m["covered_by"]), len(sets))
    return out


def expand(section: Mapping[str, Any]) -> dict[str, Any]:
    """The section with node ids in place of pin indices (what the renderers read); no ``pin_sets``.
    A section already expanded is returned as it is."""
    if "pin_sets" not in section:
        return dict(section)
    ids: list[str] = section["pins"]["ids"]
    sets: list[list[int]] = section["pin_sets"]
    mutants = [_expanded_mutant(m, ids, sets) for m in section["mutants"]]
    pin_kills = [_renamed_kills(r, ids.__getitem__) for r in section["pin_kills"]]
    out = {k: v for k, v in section.items() if k != "pin_sets"}
    return {**out, "mutants": mutants, "pin_kills": pin_kills}


def _expanded_mutant(m: Mapping[str, Any], ids: list[str], sets: list[list[int]]) -> dict[str, Any]:
    """A compact section's mutant with node ids for indices, its covering set spelled out."""
    return {**_renamed(m, ids.__getitem__), "covered_by": [ids[i] for i in sets[m["covered_by"]]]}


def _renamed(m: Mapping[str, Any], name: Callable[[Any], Any]) -> dict[str, Any]:
    """A mutant whose pin lists (its own and its claim's) are renamed: node id <-> index.
    ``covered_by`` is left to the caller (a set index in the compact form)."""
    out = {**m, **_renamed_lists(m, _INDEXED, name)}
    if "claim" in m:
        out["claim"] = {**m["claim"], **_renamed_lists(m["claim"], _CLAIM_INDEXED, name)}
    return out


def _renamed_kills(row: Mapping[str, Any], name: Callable[[Any], Any]) -> dict[str, Any]:
    """A row of the per-pin table with its pin (and a group's items) renamed: node id <-> index."""
    return {**row, "pin": name(row["pin"]), **_renamed_lists(row, ("items",), name)}


def _renamed_lists(entry: Mapping[str, Any], keys: tuple[str, ...], name: Callable[[Any], Any]) -> dict[str, Any]:
    """The pin lists ``entry`` holds under ``keys``, each pin renamed."""
    return {k: [name(p) for p in entry[k]] for k in keys if k in entry}


def _excluded(baseline: Mapping[str, Any], nodeids: list[str]) -> list[dict[str, Any]]:
    """The pins that did not pass on unmutated code: left out of every row."""
    outcomes: Mapping[str, str] = baseline.get("outcomes", {})
    return [{"pin": p, "outcome": outcomes.get(p, "not run"), "detail": baseline.get("details", {}).get(p, "")}
            for p in nodeids if outcomes.get(p) != "passed"]


def _ordered(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The selected mutants: declared ones in ledger order (M1, M2...), operator ones by place."""
    selected = set(plan["selected"])
    position = {m["key"]: i for i, m in enumerate(plan["mutants"])}
    return sorted((m for m in plan["mutants"] if m["key"] in selected),
                  key=lambda m: (_KIND_ORDER[m["kind"]], position[m["key"]] if m["kind"] == "declared" else 0,
                                 m["file"], m["line"], m["column"], m["id"]))


def _score(counts: Mapping[str, int]) -> float | None:
    detected = counts["killed"] + counts["timeout"]
    judged = detected + counts["survived"] + counts["no_coverage"]
    # no mutant judged (none planned, or none run yet): there is no score, not a perfect one
    return round(100.0 * detected / judged, 2) if judged else None


def _over(threshold: Mapping[str, Any], escaped: int, score: float | None) -> bool:
    most, least = threshold.get("max_escaped"), threshold.get("min_score")
    return (most is not None and escaped > most) or (least is not None and score is not None and score < least)


def _verdict(mutants: list[dict[str, Any]], threshold: Mapping[str, Any]) -> dict[str, Any]:
    tally = Counter(m["status"] for m in mutants)
    counts = {s: tally[s] for s in STATUSES}
    score = _score(counts)
    escaping = [m for m in mutants if m["status"] in ("survived", "no_coverage")]
    escaped = [m["id"] for m in escaping if not expected_survivor(m)]
    failed_claims = _failed_claims(mutants)
    over = _over(threshold, len(escaped), score)
    return {"totals": {**counts, "total": len(mutants), "score": score}, "escaped": escaped,
            "expected_survivors": [m["id"] for m in escaping if expected_survivor(m)],
            "claims_failed": failed_claims,
            "verdict": {"escaped_over_threshold": bool(over), "claims_failed": bool(failed_claims),
                        "complete": counts["pending"] == 0}}


def _failed_claims(mutants: list[dict[str, Any]]) -> list[str]:
    """The declared mutants whose claim did not hold: failed, or (an equivalent) left unchecked."""
    return [m["id"] for m in mutants if m.get("claim", {}).get("result") in ("failed", "unchecked")]


def _pin_runs(mutants: list[dict[str, Any]]) -> dict[str, int]:
    """Pin runs made and saved over the whole run (``saved`` per mutant, see ``_mutant_entry``)."""
    made, saved = 0, Counter[str]()
    for m in mutants:
        if "saved" in m:
            made += len(m["covered_by"]) - m["saved"]["observations"]
            saved.update(m["saved"])
    by_obs, by_lines = saved["observations"], saved["lines"]
    return {"run": made, "saved": by_obs + by_lines, "saved_by_observations": by_obs, "saved_by_lines": by_lines}


def _full_section(plan: Mapping[str, Any], baseline: Mapping[str, Any], rows: Mapping[str, Mapping[str, Any]],
                  shards: list[str] | None) -> dict[str, Any]:
    nodeids: list[str] = list(baseline.get("pins", []))
    excluded = _excluded(baseline, nodeids)
    excluded_ids = {e["pin"] for e in excluded}
    metas = _ordered(plan)
    mutants = [_mutant_entry(m, rows.get(m["key"]), nodeids, plan["suite_prefix"], excluded_ids) for m in metas]
    threshold = dict(plan.get("threshold", {}))
    judged = _verdict(mutants, threshold)
    live = [p for p in nodeids if p not in excluded_ids]
    return {
        "version": SECTION_VERSION,
        "suite": plan.get("suite_name", ""),
        "shard": shards if shards is not None else _shard_names(plan),
        "in_diff": plan.get("in_diff"),
        "targets": sorted({m["file"] for m in metas}),
        "pins": {"collected": len(nodeids), "ids": nodeids, "excluded": excluded,
                 "set": plan.get("pin_set")},
        **judged,
        "threshold": threshold,
        "first_kill": bool(plan.get("first_kill")),
        "pin_runs": _pin_runs(mutants),
        "mutants": mutants,
        "pin_kills": _pin_table(mutants, live),
        "timing": _timing(baseline, metas, rows),
    }


def _timing(baseline: Mapping[str, Any], metas: list[dict[str, Any]],
            rows: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The wall-clock durations: the one part of the section that differs between identical runs."""
    return {"baseline_s": baseline.get("duration_s", 0.0),
            "mutant_s": {m["id"]: rows[m["key"]].get("duration_s", 0.0) for m in metas if m["key"] in rows}}


def _shard_names(plan: Mapping[str, Any]) -> list[str] | None:
    """The plan's own slice as ``k/n`` (a merge names its shards itself), or None when unsharded."""
    return [f"{plan['shard'][0]}/{plan['shard'][1]}"] if plan.get("shard") else None
