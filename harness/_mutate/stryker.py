"""The mutation section as a Stryker mutation-testing-report-schema document (schemaVersion 2).

Viewable with the ``mutation-testing-elements`` web component (``viewer.py`` writes the page);
checked in the tests against the official JSON Schema vendored in ``vendor/`` with its version.

Each mutant carries ``replacement``, the code that stands in place of ``location`` when the mutant
is on: without it the viewer shows the description where the code should be. Operator mutants
take it from the plan (mutmut's mutated node); declared mutants from their diff, the removed lines
being the location and the added lines the replacement.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from harness._mutate.results import expand

__all__ = ["STATUS", "diff_replacement", "official_schema", "stryker_report"]

STATUS = {
    "killed": "Killed", "survived": "Survived", "timeout": "Timeout", "no_coverage": "NoCoverage",
    "unviable": "CompileError", "equivalent": "Ignored", "pending": "Pending",
}


def official_schema() -> dict[str, Any]:
    """The vendored mutation-testing-report-schema (version and source in vendor/VENDORED.json)."""
    text = resources.files("harness._mutate").joinpath("vendor/mutation-testing-report-schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _test_file(pin: str) -> str:
    return pin.split("::", 1)[0]


def diff_replacement(diff: str) -> tuple[dict[str, Any], str] | None:
    """(location, replacement) from the first hunk of a unified diff: the removed lines of the
    original are the location (a zero-width one where the hunk only adds), the added lines the
    replacement. None when the text holds no hunk."""
    found = _first_change(diff)
    if found is None:
        return None
    start, removed, added = found
    if not removed:
        return _insertion(start, added)
    # the location starts after the first removed line's indentation (the viewer underlines it),
    # and the replacement drops the same indentation from its first line
    indent = len(removed[0]) - len(removed[0].lstrip())
    if added and added[0][:indent].strip() == "":
        added[0] = added[0][indent:]
    end = {"line": start + len(removed) - 1, "column": len(removed[-1]) + 1}
    return {"start": {"line": start, "column": indent + 1}, "end": end}, "\n".join(added)


def _insertion(start: int, added: list[str]) -> tuple[dict[str, Any], str]:
    """A change that only adds lines: a zero-width location before them, the lines as its replacement."""
    spot = {"line": start, "column": 1}
    return {"start": spot, "end": dict(spot)}, "\n".join(added) + ("\n" if added else "")


def _first_change(diff: str) -> tuple[int, list[str], list[str]] | None:
    """(first original line changed, removed lines, added lines) of the first run of changes in
    the first hunk: a location is one range. None when the text changes nothing."""
    old_line = 0
    start: int | None = None
    removed: list[str] = []
    added: list[str] = []
    for line in diff.splitlines():
        if line.startswith("@@"):
            if start is not None:
                break  # the first hunk only
            old_line = int(line.split()[1].lstrip("-").split(",")[0])
        elif not old_line or line.startswith(("---", "+++")):
            continue
        elif line.startswith(("-", "+")):
            start = old_line if start is None else start  # later lines of the run need no count
            (removed if line[0] == "-" else added).append(line[1:])
        elif start is not None:
            break  # a context line after the change ends it
        else:
            old_line += 1
    return None if start is None else (start, removed, added)


def _place(m: Mapping[str, Any], replacements: Mapping[str, str]) -> tuple[dict[str, Any], str | None]:
    location = {"start": {"line": m["line"], "column": m["column"]},
                "end": {"line": m["end_line"], "column": m["end_column"]}}
    if m["kind"] == "declared":
        found = diff_replacement(m.get("diff", ""))
        return found if found is not None else (location, None)
    return location, replacements.get(m.get("key", ""))


def _mutant(m: Mapping[str, Any], replacements: Mapping[str, str]) -> dict[str, Any]:
    location, replacement = _place(m, replacements)
    out: dict[str, Any] = {
        "id": m["id"],
        "mutatorName": m["operator"],
        "description": m["title"],
        "location": location,
        "status": STATUS[m["status"]],
        "killedBy": [*m["killed_by"], *m["timed_out"]],
        "coveredBy": list(m["covered_by"]),
        "static": False,
    }
    if replacement is not None:
        out["replacement"] = replacement
    reason = _status_reason(m)
    if reason:
        out["statusReason"] = reason
    return out


def _status_reason(m: Mapping[str, Any]) -> str:
    """Why an unviable mutant did not import, an equivalent one's reason, or how its pins crashed."""
    if m["status"] == "unviable":
        return str(m.get("unviable") or "does not import")
    if m["status"] == "equivalent":
        return f"declared equivalent: {m.get('claim', {}).get('equivalent', '')}"
    return "; ".join(f"{p}: {m['details'].get(p, 'crash')}" for p in m["crashed"])


def stryker_report(section: Mapping[str, Any], root: Path, plan: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Stryker lists every killing and covering test by id: the pins by name, not by index.
    ``plan`` (plan.json) gives the operator mutants' replacement code, by mutant key."""
    section = expand(section)
    replacements = _replacements(plan or {})
    files: dict[str, dict[str, Any]] = {}
    for m in section["mutants"]:
        if m["file"] not in files:
            files[m["file"]] = {"language": "python", "source": _source(root / m["file"]), "mutants": []}
        files[m["file"]]["mutants"].append(_mutant(m, replacements))
    return {
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": "2",
        "thresholds": {"high": 80, "low": 60},
        "projectRoot": str(root),
        "files": files,
        "testFiles": _test_files(section),
        "framework": {"name": "wire-harness mutate", "dependencies": {"mutmut": "3.8.1"}},
    }


def _replacements(plan: Mapping[str, Any]) -> dict[str, str]:
    """The operator mutants' replacement code, by mutant key."""
    return {m["key"]: m["replacement"] for m in plan.get("mutants", [])
            if m.get("kind") == "operator" and "replacement" in m}


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def _every_pin(section: Mapping[str, Any]) -> list[str]:
    """Every pin item the section names, sorted: each item of a pin group, and the pins left out."""
    pins = [*(p for r in section.get("pin_kills", []) for p in r.get("items", [r["pin"]])),
            *(e["pin"] for e in section["pins"]["excluded"])]
    return sorted(set(pins))


def _test_files(section: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every pin by its test file; each item of a pin group on its own (killedBy and coveredBy name
    items), and the pins left out for failing on unmutated code too."""
    tests: dict[str, dict[str, Any]] = {}
    for pin in _every_pin(section):
        tests.setdefault(_test_file(pin), {"tests": []})["tests"].append({"id": pin, "name": pin})
    return tests
