"""The mutation section as a Stryker mutation-testing-report-schema document (schemaVersion 2).

Viewable with the npm ``mutation-testing-elements`` web component; checked in a test against
the official JSON Schema from the npm package ``mutation-testing-report-schema``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.mutate.results import expand

__all__ = ["STATUS", "stryker_report"]

STATUS = {
    "killed": "Killed", "survived": "Survived", "timeout": "Timeout", "no_coverage": "NoCoverage",
    "unviable": "CompileError", "equivalent": "Ignored", "pending": "Pending",
}


def _test_file(pin: str) -> str:
    return pin.split("::", 1)[0]


def _mutant(m: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": m["id"],
        "mutatorName": m["operator"],
        "description": m["title"],
        "location": {"start": {"line": m["line"], "column": m["column"]},
                     "end": {"line": m["end_line"], "column": m["end_column"]}},
        "status": STATUS[m["status"]],
        "killedBy": [*m["killed_by"], *m["timed_out"]],
        "coveredBy": list(m["covered_by"]),
        "static": False,
    }
    if m["status"] == "unviable":
        out["statusReason"] = m.get("unviable") or "does not import"
    elif m["status"] == "equivalent":
        out["statusReason"] = f"declared equivalent: {m.get('claim', {}).get('equivalent', '')}"
    elif m["crashed"]:
        out["statusReason"] = "; ".join(f"{p}: {m['details'].get(p, 'crash')}" for p in m["crashed"])
    return out


def stryker_report(section: dict[str, Any], root: Path) -> dict[str, Any]:
    """Stryker lists every killing and covering test by id: the pins by name, not by index."""
    section = expand(section)
    files: dict[str, dict[str, Any]] = {}
    for m in section["mutants"]:
        entry = files.get(m["file"])
        if entry is None:
            path = root / m["file"]
            source = path.read_text(encoding="utf-8") if path.is_file() else ""
            entry = files[m["file"]] = {"language": "python", "source": source, "mutants": []}
        entry["mutants"].append(_mutant(m))
    # every item of a pin group: killedBy and coveredBy name items
    pins = [*(p for r in section.get("pin_kills", []) for p in r.get("items", [r["pin"]])),
            *(e["pin"] for e in section["pins"]["excluded"])]
    tests: dict[str, dict[str, Any]] = {}
    for pin in sorted(set(pins)):
        tests.setdefault(_test_file(pin), {"tests": []})["tests"].append({"id": pin, "name": pin})
    return {
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": "2",
        "thresholds": {"high": 80, "low": 60},
        "projectRoot": str(root),
        "files": files,
        "testFiles": tests,
        "framework": {"name": "wire-harness mutate", "dependencies": {"mutmut": "3.8.1"}},
    }
