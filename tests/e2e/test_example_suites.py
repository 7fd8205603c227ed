"""The example suites in other processes and languages (examples/python, examples/node,
examples/rust) run through ``harness
run`` with intended divergences, declared rejections and passing pins, and every claim of their
declared ledgers holds: each mutant, applied to a scratch copy, turns its claimed pins red.

Each test skips with the reason when its toolchain is absent (node; cargo with Debian's
serde_json sources; Python is always there). Everything runs in a scratch copy: the repository's tree is never built in.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness._report.validate import validate_report
from tests.e2e.examples_tree import cargo_missing, mirror, node_missing
from tests.e2e.inproc import harness_main, python3_first_on_path

pytestmark = pytest.mark.slow

MISSING: dict[str, Callable[[], str | None]] = {"node": node_missing, "rust": cargo_missing,
                                                "python": lambda: None}
# what each example's run shows: verdicts (identical, intended, runs), its rejection summary, pins.
# node and rust: old flattens everywhere, so the new side only introduces (declared) rejections;
# python: old is the seed's first revision (verbatim everywhere), whose 400s the new side fixes.
EXPECTED: dict[str, tuple[tuple[int, int, int], dict[str, int], int]] = {
    "node": ((9, 16, 25), {"known_rejected": 3, "new_undeclared": 0, "new_expected": 4, "old": 0,
                            "new_rejected_bodies": 3, "new_undeclared_bodies": 0, "old_rejected_bodies": 0}, 43),
    "rust": ((9, 16, 25), {"known_rejected": 3, "new_undeclared": 0, "new_expected": 4, "old": 0,
                            "new_rejected_bodies": 3, "new_undeclared_bodies": 0, "old_rejected_bodies": 0}, 43),
    "python": ((19, 6, 25), {"known_rejected": 12, "new_undeclared": 0, "new_expected": 4, "old": 12,
                             "new_rejected_bodies": 3, "new_undeclared_bodies": 0, "old_rejected_bodies": 9}, 41),
}


def run_report(suite: Path, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """``harness run`` on ``suite`` in this process (its pipelines are programs of their own
    either way), with one worker: the example's verdicts do not depend on how many there are;
    ``python3`` in its commands found without a shim."""
    got = harness_main("run", str(suite), "--format", "json", "--out", str(out), "--workers", "1", *extra,
                       cwd=suite, env={"NO_COLOR": "1", **python3_first_on_path(out.parent / "bin")})
    assert got.returncode in (0, 1), got.stderr
    report: dict[str, Any] = json.loads(got.stdout)
    validate_report(report)
    return got.returncode, report


@pytest.fixture(scope="module")
def python_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, dict[str, Any]]:
    """The python example's run, once for this module's tests: in an environment without
    PYTHONDONTWRITEBYTECODE, which the suite must set for itself."""
    tmp = tmp_path_factory.mktemp("python-example")
    suite = mirror(tmp, "python")
    with pytest.MonkeyPatch.context() as env:
        env.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        code, report = run_report(suite, tmp / "out")
    return suite, code, report


# building the Rust example (and, below, mutating either example) is the heavy tier: tests/README.md
@pytest.fixture(params=["python", "node", pytest.param("rust", marks=pytest.mark.heavy)])
def example(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    lang: str = request.param
    reason = MISSING[lang]()
    if reason:
        pytest.skip(reason)
    return lang, mirror(tmp_path, lang)


@pytest.mark.parametrize("lang", ["python", "node", pytest.param("rust", marks=pytest.mark.heavy)])
def test_an_example_suite_runs_clean_with_intended_divergences_declared_rejections_and_pins(
        lang: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if lang == "python":
        _, code, report = request.getfixturevalue("python_run")
    else:
        reason = MISSING[lang]()
        if reason:
            pytest.skip(reason)
        code, report = run_report(mirror(tmp_path, lang), tmp_path / "out")
    assert code == 0, report["summary"]
    counts, rejections, pins = EXPECTED[lang]
    verdicts = [row["verdict"] for row in report["differential"]]
    assert (verdicts.count("identical"), verdicts.count("intended"), len(verdicts)) == counts
    declared = {(f["case"], f["lane"], r["rule"]) for f in report["rejections"]["findings"] if f["side"] == "new"
                for r in f["rejections"] if r["expected"]}
    assert report["rejections"]["summary"] == {"bodies": 50, **rejections}
    assert ("apply-patch-root-oneof", "custom-gateway-claude", "anthropic.root-composition") in declared
    assert ("allof-refs-no-type", "custom-gateway-claude", "anthropic.input-schema-type-required") in declared
    outcomes = {p["outcome"] for p in report["pins"]["results"]}
    assert outcomes == {"passed"} and len(report["pins"]["results"]) == pins


def test_the_python_example_fixes_on_the_first_party_lanes_the_400_its_old_revision_triggers(
        python_run: tuple[Path, int, dict[str, Any]]) -> None:
    suite, code, report = python_run
    assert code == 0, report["summary"]
    groups = {(g["lane"], g["rule"]): g for g in report["rejections"]["delta"]["groups"]}
    for lane in ("anthropic-first-party", "custom-anthropic-endpoint"):
        assert groups[lane, "anthropic.root-composition"]["fixed"] == [
            "apply-patch-root-oneof", "finance-root-anyof", "allof-refs-no-type"]
        assert groups[lane, "anthropic.input-schema-type-required"]["fixed"] == ["allof-refs-no-type"]
    assert groups["custom-gateway-claude", "anthropic.root-composition"]["persisting"] == [
        "apply-patch-root-oneof", "finance-root-anyof", "allof-refs-no-type"]
    assert not list(suite.rglob("__pycache__")), "a run wrote bytecode into the user's tree"


def _claimed(ref: str, results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pin results a ledger's short reference names (every lane unless it names one)."""
    case_lane, pin = ref.split("::")
    case, _, lane = case_lane.partition("[")
    pattern = f"*::{case}[{lane.rstrip(']') or '*'}]::{pin}"
    return [r for r in results if fnmatch.fnmatchcase(r["id"], pattern.replace("[", "[[]", 1))]


@pytest.mark.heavy
def test_every_claim_of_an_example_ledger_holds_on_a_scratch_copy(example: tuple[str, Path], tmp_path: Path) -> None:
    lang, suite = example
    root = suite.parents[1]
    ledger = yaml.safe_load((suite / "narrowing.ledger.yaml").read_text())
    # run checks every ledger's find text against the files as they are: a mutated file would not match
    (suite / "narrowing.ledger.yaml").unlink()
    wrong = []
    for mutant in ledger["mutants"]:
        site = root / mutant["site"]["file"]
        source = site.read_text()
        find, replace = mutant["change"]["find"], mutant["change"]["replace"]
        assert source.count(find) == 1, f"{mutant['id']}: the find text must occur exactly once in {site.name}"
        site.write_text(source.replace(find, replace))
        try:
            _, report = run_report(suite, tmp_path / mutant["id"], "--no-rejections")
        finally:
            site.write_text(source)
        results = report["pins"]["results"]
        red = {r["id"] for r in results if r["outcome"] != "passed"}
        if "equivalent" in mutant:
            if red:
                wrong.append(f"{mutant['id']} is declared equivalent but turned {sorted(red)} red")
            continue
        for ref in mutant["killed_by"]:
            named = _claimed(ref, results)
            if not named:
                wrong.append(f"{mutant['id']}: {ref} names no pin")
            green = [r["id"] for r in named if r["outcome"] == "passed"]
            if green:
                wrong.append(f"{mutant['id']}: claimed {ref} stayed green on {green}")
    assert not wrong, f"{lang} ledger:\n" + "\n".join(wrong)
