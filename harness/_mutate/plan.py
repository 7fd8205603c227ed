"""The plan of a run: settings, targets, every mutant, this shard's slice, written to plan.json.

Everything that can be wrong with the input (a bad setting, a target that does not exist, a
declared change that does not apply) is found here, before any pin runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness._errors import ConfigError, Place
from harness._model import Case
from harness._mutate.foreign import JS_SUFFIXES, RUST_SUFFIXES, cargo_mutants, stryker_mutants
from harness._mutate.ledger import DeclaredMutant, Ledger, load_ledgers
from harness._mutate.mutants import Mutant, as_file_mutant, declared_mutant, operator_mutants, shard_keys
from harness._mutate.mutmut_adapter import generate, prefetch
from harness._mutate.sandbox import Sandbox
from harness._mutate.select import in_scope, pick, pin_filter_args
from harness._mutate.targets import (
    MutationSettings,
    Target,
    changed_lines,
    function_spans,
    load_settings,
    module_name,
    resolve_targets,
)
from harness._settings import Settings

__all__ = ["Options", "Plan", "baseline_key", "build_plan", "out_folder", "parse_shard"]


@dataclass(frozen=True)
class Options:
    in_diff: str | None = None
    shard: tuple[int, int] | None = None
    workers: int | None = None
    out: Path | None = None
    resume: bool = False
    progress: bool = False
    pins: str | None = None  # a named pin set (suite.yaml pin_sets): only its pins run
    mutants: tuple[str, ...] = ()  # --mutant: only these ids (globs)
    cases: tuple[str, ...] = ()  # --case/--lane: only these case-file pins
    lanes: tuple[str, ...] = ()
    first_kill: bool = False  # --first-kill: a mutant's row ends at its first killing pin (mutmut's semantics)
    # "pin": the engine before observation granularity (every covering pin as a pytest item); the
    # oracle the kill-matrix tests compare with, not a user setting
    granularity: str = "observation"
    # sides played from a git revision (``harness run --old-ref``): the revision's code, in a tree
    # outside the project, which no mutant changes; the engine plays them as the run did
    revisions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    suite_root: Path
    suite_name: str
    settings: MutationSettings
    targets: tuple[Target, ...]
    mutants: tuple[Mutant, ...]
    selected: frozenset[str]
    out: Path
    shard: tuple[int, int] | None
    in_diff: str | None
    pin_set: str | None = None
    options: Options = Options()
    left_out: tuple[str, ...] = ()  # declared mutants whose claimed pins the filters leave out
    fixed: Mapping[str, Mapping[str, dict[str, Any]]] = field(default_factory=dict)
    """Sides played from a git revision, by subject and side, as plain specs: the engine plays them."""


def parse_shard(text: str) -> tuple[int, int]:
    k, sep, n = text.partition("/")
    if not sep or not k.isdigit() or not n.isdigit() or not 1 <= int(k) <= int(n):
        raise ConfigError("--shard", text, "k/n with 1 <= k <= n, e.g. 2/4")
    return int(k), int(n)


def _filter_in_diff(targets: list[Target], root: Path, rev: str) -> list[Target]:
    changed = changed_lines(root, rev, [t.rel for t in targets])
    narrowed = (_narrowed(t, changed.get(t.rel, set())) for t in targets)
    return [t for t in narrowed if t is not None]


def _narrowed(t: Target, lines: set[int]) -> Target | None:
    """``t`` cut to the functions the changed ``lines`` touch; None when they touch none. A file
    without function spans (not Python) is kept whole when the diff touches it."""
    if not t.file.name.endswith(".py"):
        return t if lines else None
    names = _touched_functions(t, lines)
    return Target(t.file, t.rel, t.module, frozenset(names)) if names else None


def _touched_functions(t: Target, lines: set[int]) -> set[str]:
    """The target's functions (all of the file's, or those it names) that the changed ``lines`` touch."""
    spans = function_spans(t.file.read_text(encoding="utf-8"))
    names = {n for n, span in spans.items() if _touches(lines, span)}
    return names if t.functions is None else names & t.functions


def _declared_in_diff(mutants: list[Mutant], root: Path, rev: str) -> list[Mutant]:
    changed = changed_lines(root, rev, [m.file for m in mutants])
    return [m for m in mutants if _site_touched(m, changed.get(m.file, set()), root)]


def _site_touched(m: Mutant, lines: set[int], root: Path) -> bool:
    """Whether the changed ``lines`` touch a declared mutant's site: its function, else its file."""
    if m.function is None or not m.file.endswith(".py"):
        return bool(lines)
    return _touches(lines, function_spans((root / m.file).read_text(encoding="utf-8"))[m.function])


def _touches(lines: set[int], span: tuple[int, int]) -> bool:
    first, last = span
    return bool(lines & set(range(first, last + 1)))


def out_folder(suite_root: Path, options: Options) -> Path:
    """Where a run's files go: ``--out``, else ``reports/mutation`` beside the suite folder."""
    return (options.out or suite_root.resolve().parent / "reports" / "mutation").resolve()


def _operator_mutants(targets: list[Target], root: Path, out: Path, external: bool,
                      places: dict[Path, Place]) -> list[Mutant]:
    """mutmut for Python (trampolines; whole-file changes when the sides run outside this
    process), Stryker for JS/TS, cargo-mutants for Rust."""
    mutants: list[Mutant] = []
    (out / "external").mkdir(exist_ok=True)
    rust: list[tuple[Path, str, Place]] = []
    prefetch([(t.rel, t.file, t.functions) for t in targets])  # the Python ones at once, a process a core
    for t in targets:
        place = places.get(t.file, Place("suite.yaml", None, "mutation.targets"))
        if t.file.name.endswith(JS_SUFFIXES):
            mutants.extend(stryker_mutants(t.file, t.rel, root, place, out / "external"))
            continue
        if t.file.name.endswith(RUST_SUFFIXES):
            rust.append((t.file, t.rel, place))
            continue
        mutants.extend(_python_mutants(t, out, external))
    mutants.extend(cargo_mutants(rust, root, out / "external"))
    return mutants


def _python_mutants(t: Target, out: Path, external: bool) -> list[Mutant]:
    """mutmut's mutants of one Python target: switched in the trampolined module written under
    ``out/mutants``, or (``external``) each a whole mutated file under ``out/external``."""
    source = t.file.read_text(encoding="utf-8")
    generated = generate(t.rel, source, t.functions)
    found = operator_mutants(t.rel, t.module, source, generated)
    if external:
        edits = {m.switch: e.mutated for m, e in zip(found, generated.edits, strict=True)}
        return [as_file_mutant(m, edits[m.switch], out / "external") for m in found]
    dest = out / "mutants" / t.rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(generated.code, encoding="utf-8")
    return found


def _suite_prefix(suite_root: Path, root: Path) -> str:
    try:
        prefix = suite_root.relative_to(root).as_posix()
    except ValueError:
        return ""
    return "" if prefix == "." else prefix + "/"


def _targets(ms: MutationSettings, ledgers: list[Ledger], suite_root: Path,
             in_diff: str | None) -> tuple[list[Target], dict[Path, Place]]:
    """The operator targets (suite.yaml's and the ledgers'), and where each was declared."""
    entries = _target_entries(ms, ledgers)
    targets = resolve_targets(entries, ms.root, suite_root) if ms.operators else []
    if in_diff:
        targets = _filter_in_diff(targets, ms.root, in_diff)
    return targets, _places(entries, ms.root, suite_root) if targets else {}


def _places(entries: list[tuple[str, Place]], root: Path, suite_root: Path) -> dict[Path, Place]:
    """Where each target file was declared (a file named twice: its last entry), for the errors
    of the tools that list its mutants."""
    return {resolve_targets([e], root, suite_root)[0].file: e[1] for e in entries}


def _something_to_mutate(ms: MutationSettings, ledgers: list[Ledger]) -> None:
    """A suite that names no target and declares no mutant has nothing a mutation run could
    test: that is a missing setting, not a clean run of zero mutants (``--in-diff`` narrowing
    named targets down to none is the clean run)."""
    if not _target_entries(ms, ledgers) and not any(ledger.mutants for ledger in ledgers):
        raise ConfigError("suite.yaml mutation.targets", None,
                          "the code to mutate: `mutation: {targets: [pkg/module.py]}` (files, folders or "
                          "`module:function`) in suite.yaml, or a ledger's `targets` or declared mutants "
                          "(docs/mutation.md)")


def _target_entries(ms: MutationSettings, ledgers: list[Ledger]) -> list[tuple[str, Place]]:
    """Every target string with where it stands: suite.yaml's ``mutation.targets``, then the ledgers'."""
    entries = [(t, Place("suite.yaml", None, f"mutation.targets[{i}]")) for i, t in enumerate(ms.targets)]
    return entries + [entry for ledger in ledgers for entry in ledger.targets]


def _declared(ledgers: list[Ledger], ms: MutationSettings, suite_root: Path, out: Path,
              external: bool) -> list[Mutant]:
    """The ledgers' mutants, each mutated file written under ``out/declared``."""
    (out / "declared").mkdir(exist_ok=True)
    return [_declared_one(d, ms.root, suite_root, out / "declared", external)
            for ledger in ledgers for d in ledger.mutants]


def _declared_one(d: DeclaredMutant, root: Path, suite_root: Path, folder: Path, external: bool) -> Mutant:
    """One ledger mutant, its mutated file written to ``folder``: a module swapped in at import, or a
    whole file applied in the row's sandbox (a side run outside the engine, or a foreign file)."""
    as_file = external or not d.file.endswith(".py")
    path = folder / (f"{d.id}{Path(d.file).suffix}" if as_file else f"{d.id}.py")
    path.write_text(d.source, encoding="utf-8")
    if as_file:
        return replace(declared_mutant(d, "", str(path)), apply="file")
    return declared_mutant(d, module_name(root, root / d.file, suite_root), str(path))


def _selected(mutants: list[Mutant], options: Options) -> set[str]:
    keys = [m.key for m in mutants]
    selected = shard_keys(keys, *options.shard) if options.shard else set(keys)
    if options.mutants:
        selected &= pick(mutants, options.mutants)
    return selected


def build_plan(suite_root: Path, suite_name: str, settings: Mapping[str, Any], options: Options,
               cases: Sequence[Case] = (), external: bool = False,
               fixed: Mapping[str, Mapping[str, dict[str, Any]]] | None = None) -> Plan:
    """``external``: some side runs outside the engine's process (a command, another interpreter):
    every mutant is then a whole-file change applied in its row's sandbox. ``fixed``: sides the
    engine plays from a git revision (plain specs by subject and side)."""
    suite_root = suite_root.resolve()
    ms = load_settings(suite_root, settings)
    out = out_folder(suite_root, options)
    out.mkdir(parents=True, exist_ok=True)
    ledgers: list[Ledger] = load_ledgers(suite_root, list(Settings.parse(settings).ledgers), ms.root)
    _something_to_mutate(ms, ledgers)
    ledgers = [ledger for ledger in ledgers if ledger.runs_with(options.pins)]  # a round's own mutants
    targets, places = _targets(ms, ledgers, suite_root, options.in_diff)
    (out / "mutants").mkdir(exist_ok=True)
    mutants = _operator_mutants(targets, ms.root, out, external, places)
    declared = _declared(ledgers, ms, suite_root, out, external)
    if options.in_diff:
        declared = _declared_in_diff(declared, ms.root, options.in_diff)
    declared, left_out = in_scope(declared, cases, options.cases, options.lanes, _suite_prefix(suite_root, ms.root))
    mutants.extend(declared)
    return Plan(suite_root=suite_root, suite_name=suite_name, settings=ms, targets=tuple(targets),
                mutants=tuple(mutants), selected=frozenset(_selected(mutants, options)), out=out,
                shard=options.shard, in_diff=options.in_diff, pin_set=options.pins, options=options,
                left_out=tuple(left_out), fixed=dict(fixed or {}))


def _pin_args(plan: Plan, at: Callable[[Path], str]) -> list[str]:
    """A pin set and --case/--lane are chosen by the pins plugin at collection, as plain pytest does."""
    return [*(at((plan.suite_root / p).resolve()) for p in plan.settings.pins),
            *([f"--harness-pins={plan.pin_set}"] if plan.pin_set else []),
            *pin_filter_args(plan.options.cases, plan.options.lanes)]


def _modules(plan: Plan, at: Callable[[Path], str]) -> dict[str, list[str]]:
    """Trampolined target modules: name -> [the source file, the trampolined file]."""
    switched = _switched_files(plan)
    return {t.module: [at(t.file), str(plan.out / "mutants" / t.rel)] for t in plan.targets
            if t.module and t.rel in switched}


def _switched_files(plan: Plan) -> set[str]:
    """The files with operator mutants switched in a trampolined module (not applied as whole files)."""
    return {m.file for m in plan.mutants if m.how == "switch"}


def _site_modules(plan: Plan) -> list[str]:
    """The modules a declared mutant is executed into (its changed source run in place)."""
    return sorted({m.module for m in plan.mutants if m.how == "module"})


def baseline_key(plan: Plan, tree: Mapping[str, str]) -> str:
    """What the baseline (every pin once on unmutated code, and what each reaches) depends on: the
    project's files as listed (path, size, mtime), the pins chosen and the modules traced. A
    ``--resume`` whose key is the stopped run's reuses that run's baseline.json."""
    import hashlib

    what = {"tree": sorted(tree.items()), "pins": list(plan.settings.pins), "exclude": list(plan.settings.exclude),
            "pin_set": plan.pin_set, "cases": list(plan.options.cases), "lanes": list(plan.options.lanes),
            "modules": sorted(_modules(plan, str)), "site_modules": _site_modules(plan),
            "fixed": {k: dict(v) for k, v in plan.fixed.items()}, "rebuild": plan.settings.rebuild}
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()


def plan_document(plan: Plan, workers: int, done: set[str], sandbox: Sandbox | None = None,
                  key: str = "") -> dict[str, Any]:
    """What the engine process reads (plan.json). With a ``sandbox`` every path the engine runs
    from (project root, suite, pins, target modules) is the scratch copy's, not the user's."""
    root = plan.settings.root
    at = sandbox.map if sandbox is not None else str
    prefix = _suite_prefix(plan.suite_root, root)
    return {
        "version": 1,
        "root": at(root),
        "project_root": str(root),
        "suite_root": at(plan.suite_root),
        "suite_prefix": prefix,
        "exclude": list(plan.settings.exclude),
        "pin_args": _pin_args(plan, at),
        "pin_set": plan.pin_set,
        "filters": {"mutants": list(plan.options.mutants), "cases": list(plan.options.cases),
                    "lanes": list(plan.options.lanes), "left_out": list(plan.left_out)},
        "modules": _modules(plan, at),
        "site_modules": _site_modules(plan),
        "sandbox": sandbox.describe() if sandbox is not None else None,
        "rebuild": plan.settings.rebuild,
        "fixed_sides": {name: dict(sides) for name, sides in plan.fixed.items()},
        "mutants": [m.as_dict() for m in plan.mutants],
        "selected": sorted(plan.selected),
        "done": sorted(done),
        "baseline_key": key,  # a --resume reuses a baseline.json carrying the same key
        "resume": plan.options.resume,
        "timeout": {"factor": plan.settings.timeout_factor, "floor_s": plan.settings.timeout_floor_s,
                    "baseline_s": plan.settings.baseline_deadline_s},
        "workers": workers,
        "first_kill": plan.options.first_kill,
        "granularity": plan.options.granularity,
        "out": str(plan.out),
        "shard": list(plan.shard) if plan.shard else None,
        "in_diff": plan.in_diff,
        "suite_name": plan.suite_name,
        "threshold": {"max_escaped": plan.settings.max_escaped, "min_score": plan.settings.min_score},
    }


def write_plan(plan: Plan, workers: int, done: set[str], sandbox: Sandbox | None = None, key: str = "") -> Path:
    path = plan.out / "plan.json"
    document = plan_document(plan, workers, done, sandbox, key)
    path.write_text(json.dumps(document, indent=1, sort_keys=True), encoding="utf-8")
    return path
