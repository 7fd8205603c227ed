"""Join shard result folders (each a ``harness mutate --shard k/n --out DIR``) into one report.

A shard folder is input, and may be crafted: one whose results carry rows for another slice's
mutants would make a missing shard's mutants look run (the merge said ``complete`` with a slice
missing), and one whose rows name pins its baseline never collected, or whose slice is not
``k/n`` numbers, ended in an internal error. So each shard's slice must be ``k/n`` with
``1 <= k <= n``, no slice given twice, the slices' selections disjoint, every row a mutant its own
shard selected, naming pins the shards' baselines collected (the same pins in every shard).
``baseline_problem`` holds ``harness mutate --baseline`` to the same: a shard alone, or a section
with mutants pending, is no baseline (its other slices' escapes would all look new).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from harness._errors import ConfigError
from harness._mutate.section import MutationSection

__all__ = ["baseline_problem", "merge"]


def _load(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A shard's plan and baseline, checked for the shape a merge reads (a shard folder can be
    hand-edited, truncated or from another version: one ConfigError naming it, never exit 70)."""
    plan, baseline = _read(folder, "plan.json"), _read(folder, "baseline.json")
    problem = _plan_problem(plan) or _baseline_problem(baseline)
    if problem:
        raise ConfigError("shard folder", str(folder), f"a finished shard (plan.json, baseline.json): {problem}")
    return plan, baseline


def _read(folder: Path, name: str) -> Any:
    try:
        return json.loads((folder / name).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        why = "nested too deep" if isinstance(exc, RecursionError) else exc
        raise ConfigError("shard folder", str(folder),
                          f"a finished shard (plan.json, baseline.json): {name}: {why}") from None


def _plan_problem(plan: Any) -> str | None:
    if not isinstance(plan, dict):
        return f"plan.json holds {type(plan).__name__}, not an object"
    mutants = plan.get("mutants")
    if not isinstance(mutants, list) or not all(isinstance(m, dict) and isinstance(m.get("key"), str)
                                                for m in mutants):
        return "plan.json's mutants are not a list of planned mutants"
    selected = plan.get("selected")
    if not isinstance(selected, list) or not set(selected) <= {m["key"] for m in mutants}:
        return "plan.json's selected mutants are not a list of its planned mutants' keys"
    outside = next((m["file"] for m in mutants if _outward(m.get("file"))), None)
    if outside is not None:
        return f"plan.json's mutant file {str(outside)[:80]!r} is not a path inside the project"
    return _slice_problem(plan.get("shard"))


def _outward(file: Any) -> bool:
    """A mutant's file the merge would read sources from: relative, without ``..``."""
    return not isinstance(file, str) or file.startswith(("/", "~")) or "\0" in file or ".." in Path(file).parts


def _sources_root(plan: dict[str, Any], out: Path) -> str:
    """Where the merged Stryker report reads the mutated files' sources: the shards' project root
    when it is this folder or below it (a CI merge job runs in the checkout), else nowhere (the
    report carries no sources): a crafted plan naming ``/`` as its root would have the merge
    copy any file of this machine into the report."""
    root = plan.get("project_root") or plan.get("root")
    here = Path.cwd().resolve()
    if isinstance(root, str) and root and Path(root).resolve().is_relative_to(here):
        return root
    print(f"harness merge: the shards' project root {str(root)[:200]!r} is not this folder or below it; "
          "the Stryker report carries no sources (run the merge in the checkout)", file=sys.stderr, flush=True)
    return str(out / "no-sources")


def _slice_problem(shard: Any) -> str | None:
    """A shard's slice is None or [k, n], whole numbers with 1 <= k <= n."""
    if shard is None:
        return None
    if (not isinstance(shard, list) or len(shard) != 2 or not all(type(x) is int for x in shard)
            or not 1 <= shard[0] <= shard[1]):
        return f"plan.json's shard is {json.dumps(shard)[:60]}, not [k, n] with 1 <= k <= n"
    return None


def _baseline_problem(baseline: Any) -> str | None:
    if not isinstance(baseline, dict) or not isinstance(baseline.get("outcomes"), dict):
        return "baseline.json has no outcomes object"
    if not isinstance(baseline.get("pins"), list) or not all(isinstance(p, str) for p in baseline["pins"]):
        return "baseline.json has no list of collected pins"
    return None


def _missing(loaded: list[tuple[dict[str, Any], dict[str, Any]]], folders: list[Path]) -> tuple[list[str], list[str]]:
    """The slices given (``k/n``) and the slices of the same split that were not."""
    given = sorted({tuple(plan["shard"]) for plan, _base in loaded if plan.get("shard")})
    return [f"{k}/{n}" for k, n in given], _absent(given, _split(given, folders))


def _absent(given: list[tuple[int, ...]], n: int | None) -> list[str]:
    """The slices ``k/n`` of the split that were not given; none when no shard was."""
    if n is None:
        return []
    return [f"{k}/{n}" for k in range(1, n + 1) if (k, n) not in given]


def _split(given: list[tuple[int, ...]], folders: list[Path]) -> int | None:
    """The N the given slices ``k/N`` share (None when no shard was given); shards of several splits
    are refused: their slices overlap."""
    splits = sorted({n for _k, n in given})
    if len(splits) > 1:
        raise ConfigError("shard folder", ", ".join(str(f) for f in folders),
                          f"shards of one split (k/N with one N), not of {splits}")
    return splits[0] if splits else None


def _same_mutants(loaded: list[tuple[dict[str, Any], dict[str, Any]]], folders: list[Path]) -> list[str]:
    keys = sorted(m["key"] for m in loaded[0][0]["mutants"])
    pins = loaded[0][1]["pins"]
    for (plan, base), folder in zip(loaded, folders, strict=True):
        if sorted(m["key"] for m in plan["mutants"]) != keys:
            raise ConfigError("shard folder", str(folder), "a shard of the same mutants as the others")
        if base["pins"] != pins:
            raise ConfigError("shard folder", str(folder),
                              "a shard whose baseline collected the same pins as the others")
    return keys


def _disjoint(loaded: list[tuple[dict[str, Any], dict[str, Any]]], folders: list[Path]) -> None:
    """No slice given twice, no mutant selected by two shards (their rows would overwrite each other)."""
    owner: dict[str, Path] = {}
    slices: dict[tuple[int, ...], Path] = {}
    for (plan, _base), folder in zip(loaded, folders, strict=True):
        if plan.get("shard"):
            earlier = slices.setdefault(tuple(plan["shard"]), folder)
            if earlier != folder:
                raise ConfigError("shard folder", str(folder), f"a slice not given already; "
                                  f"{'/'.join(map(str, plan['shard']))} is {earlier} too")
        for key in plan["selected"]:
            earlier = owner.setdefault(key, folder)
            if earlier != folder:
                raise ConfigError("shard folder", str(folder), f"shards selecting different mutants; mutant {key} "
                                  f"is selected by {earlier} too")


def _rows(loaded: list[tuple[dict[str, Any], dict[str, Any]]], folders: list[Path]) -> dict[str, dict[str, Any]]:
    """Every shard's rows, each a mutant that shard selected, naming pins its baseline collected."""
    from harness._mutate.results import read_rows

    rows: dict[str, dict[str, Any]] = {}
    for (plan, base), folder in zip(loaded, folders, strict=True):
        mine, pins = set(plan["selected"]), set(base["pins"])
        for key, row in read_rows([folder / "results.jsonl"]).items():
            problem = _row_problem(key, row, mine, pins)
            if problem:
                raise ConfigError("shard folder", str(folder / "results.jsonl"),
                                  f"rows of this shard's mutants: {problem}")
            rows[key] = row
    return rows


def _row_problem(key: Any, row: dict[str, Any], mine: set[str], pins: set[str]) -> str | None:
    if key not in mine:
        return f"a row for mutant {str(key)[:40]!r}, which this shard did not select"
    outcomes = row.get("pins")
    if not isinstance(outcomes, dict) or not all(isinstance(o, str) for o in outcomes.values()):
        return f"mutant {key}'s pins are not an object of outcomes"
    stray = sorted(set(outcomes) - pins)
    if stray:
        return f"mutant {key} names pin {stray[0][:80]!r}, which the baseline did not collect"
    return None


def baseline_problem(section: Any) -> str | None:
    """Why a mutation section cannot be a ``--baseline``: a shard alone, or mutants pending."""
    if not isinstance(section, dict):
        return None
    missing = section.get("shards_missing") or []
    pending = (section.get("totals") or {}).get("pending") or 0
    shards = section.get("shard") or []
    if missing or pending:
        return (f"a complete run; this one has {pending} pending mutant(s)"
                + (f", shards missing: {', '.join(missing)}" if missing else ""))
    if len(shards) == 1 and not shards[0].endswith("/1"):
        return f"a whole run or a merge of every shard, not shard {shards[0]} alone (harness merge the shards first)"
    return None


def _baseline(loaded: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """The first shard's baseline, with a pin left out by any shard left out of the merge."""
    outcomes: dict[str, str] = {}
    for _plan, base in loaded:
        for pin, outcome in base["outcomes"].items():
            if outcomes.get(pin, "passed") == "passed":
                outcomes[pin] = outcome
    return {**loaded[0][1], "outcomes": outcomes,
            "duration_s": sum(float(b.get("duration_s", 0.0)) for _, b in loaded)}


def _sandbox(folders: list[Path]) -> dict[str, Any] | None:
    """The merged report's ``sandbox``: what any shard's run changed outside its sandbox (None
    when no shard ran in one)."""
    guards = _guards(folders)
    if not guards:
        return None
    outside = {(o["path"], o["change"]) for g in guards for o in g.get("outside", [])}
    return {"mode": guards[0].get("mode", "copy"), "outside": [{"path": p, "change": c} for p, c in sorted(outside)]}


def _guards(folders: list[Path]) -> list[dict[str, Any]]:
    """The shards' sandbox.json documents (a shard run without a sandbox has none)."""
    guards = [(f, _read(f, "sandbox.json")) for f in folders if (f / "sandbox.json").is_file()]
    for folder, guard in guards:
        if not isinstance(guard, dict) or not isinstance(guard.get("outside", []), list):
            raise ConfigError("shard folder", str(folder), "a finished shard: sandbox.json as harness mutate writes it")
    return [guard for _folder, guard in guards]


def _write(out: Path, plan: dict[str, Any], baseline: dict[str, Any], rows: dict[str, dict[str, Any]],
           folders: list[Path]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan.json").write_text(json.dumps(plan, indent=1, sort_keys=True), encoding="utf-8")
    (out / "baseline.json").write_text(json.dumps(baseline, indent=1, sort_keys=True), encoding="utf-8")
    with (out / "results.jsonl").open("w", encoding="utf-8") as fh:
        for key in sorted(rows):
            fh.write(json.dumps(rows[key], sort_keys=True) + "\n")
    for folder in folders:  # the mutated sources are identical across shards; keep one copy
        if folder.resolve() != out.resolve():
            _copy_sources(folder, out)


def _copy_sources(folder: Path, out: Path) -> None:
    """A shard's mutated sources, for each kind ``out`` does not hold yet; a symlink is copied as
    a symlink, never followed (a crafted shard's link to a file elsewhere stays a link)."""
    for sub in ("mutants", "declared", "external"):
        if (folder / sub).is_dir() and not (folder / sub).is_symlink() and not (out / sub).exists():
            shutil.copytree(folder / sub, out / sub, symlinks=True)


def merge(folders: list[Path], out: Path) -> MutationSection:
    """One section of every planned mutant from several shards of the same plan; mutants no shard
    ran stay ``pending``, the missing slices are named and the verdict is incomplete."""
    from harness._mutate.results import build_section
    from harness._mutate.runner import write_reports

    if not folders:
        raise ConfigError("FOLDERS", "", "at least one shard result folder")
    loaded = [_load(f) for f in folders]
    keys = _same_mutants(loaded, folders)
    shards, missing = _missing(loaded, folders)
    _disjoint(loaded, folders)
    baseline = _baseline(loaded)
    # every planned mutant, not only those the given shards selected: a missing shard's mutants
    # must show as pending, never vanish from the totals
    plan = {**loaded[0][0], "selected": keys, "shard": None}
    rows = _rows(loaded, folders)
    section = build_section(plan, baseline, rows, shards or None, missing)
    sandbox = _sandbox(folders)
    if sandbox is not None:
        section["sandbox"] = sandbox
    _write(out, plan, baseline, rows, folders)
    write_reports(out, {**plan, "project_root": _sources_root(plan, out)}, section)
    return section
