"""Join shard result folders (each a ``harness mutate --shard k/n --out DIR``) into one report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from harness.errors import ConfigError

__all__ = ["merge"]


def _load(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
        baseline = json.loads((folder / "baseline.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError("shard folder", str(folder), f"a finished shard (plan.json, baseline.json): {exc}") from None
    return plan, baseline


def merge(folders: list[Path], out: Path) -> dict[str, Any]:
    """One section from several shards of the same plan; mutants no shard ran stay ``pending``."""
    from harness.mutate.results import build_section, read_rows
    from harness.mutate.runner import write_reports

    if not folders:
        raise ConfigError("FOLDERS", "", "at least one shard result folder")
    loaded = [_load(f) for f in folders]
    first_plan, first_base = loaded[0]
    keys = sorted(m["key"] for m in first_plan["mutants"])
    for (plan, _base), folder in zip(loaded, folders, strict=True):
        if sorted(m["key"] for m in plan["mutants"]) != keys:
            raise ConfigError("shard folder", str(folder), "a shard of the same mutants as the others")
    selected = sorted({k for plan, _ in loaded for k in plan["selected"]})
    outcomes: dict[str, str] = {}
    for _plan, base in loaded:  # a pin left out by any shard is left out of the merged report
        for pin, outcome in base["outcomes"].items():
            if outcomes.get(pin, "passed") == "passed":
                outcomes[pin] = outcome
    baseline = {**first_base, "outcomes": outcomes,
                "duration_s": sum(float(b.get("duration_s", 0.0)) for _, b in loaded)}
    plan = {**first_plan, "selected": selected, "shard": None}
    rows = read_rows([f / "results.jsonl" for f in folders])
    shards = sorted(f"{p['shard'][0]}/{p['shard'][1]}" for p, _ in loaded if p.get("shard"))
    section = build_section(plan, baseline, rows, shards or None)
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan.json").write_text(json.dumps(plan, indent=1, sort_keys=True), encoding="utf-8")
    (out / "baseline.json").write_text(json.dumps(baseline, indent=1, sort_keys=True), encoding="utf-8")
    with (out / "results.jsonl").open("w", encoding="utf-8") as fh:
        for key in sorted(rows):
            fh.write(json.dumps(rows[key], sort_keys=True) + "\n")
    for folder in folders:  # the mutated sources are identical across shards; keep one copy
        for sub in ("mutants", "declared"):
            if (folder / sub).is_dir() and not (out / sub).exists() and folder.resolve() != out.resolve():
                shutil.copytree(folder / sub, out / sub)
    write_reports(out, plan, section)
    return section
