"""`harness merge` over shard folders that are corrupt, hand-edited or from another version: one
ConfigError naming the folder and the file, never an internal error (exit 70). Found by fuzzing the
CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._errors import ConfigError
from harness._mutate.shards import merge

PLAN = json.dumps({"mutants": [], "shard": [1, 1]})
BASELINE = json.dumps({"outcomes": {}})


def _shard(folder: Path, **files: str | bytes) -> Path:
    folder.mkdir()
    for name, text in {"plan.json": PLAN, "baseline.json": BASELINE, **files}.items():
        path = folder / name.replace("_", ".")
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return folder


@pytest.mark.parametrize("files", [
    {"plan.json": "{}"}, {"plan.json": "[]"}, {"plan.json": "null"}, {"plan.json": "[" * 100_000 + "]" * 100_000},
    {"baseline.json": "{}"}, {"baseline.json": json.dumps({"outcomes": "x"})},
    {"sandbox.json": ""}, {"sandbox.json": "[]"}, {"results.jsonl": b"\x00\xff\xfe"},
], ids=["plan-empty-object", "plan-array", "plan-null", "plan-deep", "baseline-no-outcomes",
        "baseline-outcomes-string", "sandbox-empty", "sandbox-array", "results-not-utf8"])
def test_a_corrupt_shard_file_is_one_config_error_naming_the_shard(
        tmp_path: Path, files: dict[str, str | bytes]) -> None:
    shard = _shard(tmp_path / "shard", **{k.replace(".", "_"): v for k, v in files.items()})
    with pytest.raises(ConfigError, match="shard"):
        merge([shard], tmp_path / "out")


PIN = "t.py::test_a"


def _meta(mid: str) -> dict[str, object]:
    return {"key": f"k-{mid}", "id": mid, "kind": "operator", "file": "m.py", "module": "m", "function": "f",
            "line": 3, "column": 5, "end_line": 3, "end_column": 9, "operator": "BinaryOperation",
            "title": mid, "diff": f"-a\n+{mid}\n", "claims": [], "equivalent": None, "ledger": ""}


def _row(mid: str, pin: str = PIN) -> str:
    return json.dumps({"key": f"k-{mid}", "id": mid, "pins": {pin: "failed"}, "details": {}, "unviable": None,
                       "forks": 1, "duration_s": 0.1}) + "\n"


def _slice(folder: Path, k: int, n: int, rows: str, shard: object = None) -> Path:
    """Shard k/n of mutants a and b (a is 1/2, b is 2/2), its results.jsonl holding ``rows``."""
    plan = {"mutants": [_meta("a"), _meta("b")], "selected": [["k-a"], ["k-b"]][k - 1] if n == 2 else [],
            "shard": [k, n] if shard is None else shard, "suite_prefix": "", "suite_name": "s", "threshold": {},
            "root": str(folder)}
    return _shard(folder, plan_json=json.dumps(plan), baseline_json=json.dumps(
        {"pins": [PIN], "outcomes": {PIN: "passed"}}), results_jsonl=rows)


def test_a_shard_carrying_rows_for_a_missing_slices_mutants_is_refused_not_merged_as_complete(tmp_path: Path) -> None:
    crafted = _slice(tmp_path / "one", 1, 2, _row("a") + _row("b"))  # b is slice 2/2's, which is not given
    with pytest.raises(ConfigError, match=r"results\.jsonl.*a row for mutant 'k-b', which this shard did not select"):
        merge([crafted], tmp_path / "out")
    section = merge([_slice(tmp_path / "honest", 1, 2, _row("a"))], tmp_path / "out")
    assert not section["verdict"]["complete"] and section["shards_missing"] == ["2/2"]


def test_one_slice_given_twice_is_refused(tmp_path: Path) -> None:
    first, again = _slice(tmp_path / "a", 1, 2, _row("a")), _slice(tmp_path / "b", 1, 2, _row("a"))
    with pytest.raises(ConfigError, match=r"a slice not given already; 1/2 is"):
        merge([first, again], tmp_path / "out")


@pytest.mark.parametrize("shard", [[3, 2], [0, 2], ["1", "2"], [1, 2, 3], [True, 2]])
def test_a_slice_that_is_not_k_of_n_is_refused_not_an_internal_error(tmp_path: Path, shard: object) -> None:
    with pytest.raises(ConfigError, match=r"not \[k, n\] with 1 <= k <= n"):
        merge([_slice(tmp_path / "s", 1, 2, _row("a"), shard=shard)], tmp_path / "out")


def test_a_row_naming_a_pin_the_baseline_never_collected_is_refused_not_an_internal_error(tmp_path: Path) -> None:
    crafted = _slice(tmp_path / "s", 1, 2, _row("a", pin="t.py::test_nowhere"))
    with pytest.raises(ConfigError, match=r"names pin 't\.py::test_nowhere', which the baseline did not collect"):
        merge([crafted], tmp_path / "out")


def test_a_shard_alone_or_a_section_with_pending_mutants_is_no_baseline(tmp_path: Path) -> None:
    from harness._baseline import load_mutation_baseline
    from harness._report.validate import validate_mutation, validate_report

    whole = merge([_slice(tmp_path / "a", 1, 2, _row("a")), _slice(tmp_path / "b", 2, 2, _row("b"))], tmp_path / "m")
    assert whole["verdict"]["complete"]
    assert load_mutation_baseline(tmp_path / "m", validate_report, validate_mutation)[1] is not None
    alone = tmp_path / "alone"
    alone.mkdir()
    one = {**whole, "shard": ["1/2"]}  # what `harness mutate --shard 1/2` writes: its slice, complete by itself
    (alone / "mutation.json").write_text(json.dumps(one))
    with pytest.raises(ConfigError, match=r"not shard 1/2 alone \(harness merge the shards first\)"):
        load_mutation_baseline(alone, validate_report, validate_mutation)
    merge([tmp_path / "a"], tmp_path / "partial")
    with pytest.raises(ConfigError, match=r"a complete run; this one has 1 pending mutant.*shards missing: 2/2"):
        load_mutation_baseline(tmp_path / "partial", validate_report, validate_mutation)


def test_a_plan_naming_root_and_a_system_file_copies_nothing_of_it_into_the_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "elsewhere" / "secret.txt"
    outside.parent.mkdir()
    outside.write_text("root:x:0:0:the secret the crafted plan points at\n")
    shard = _slice(tmp_path / "s", 1, 1, _row("a") + _row("b"))
    plan = json.loads((shard / "plan.json").read_text())
    plan.update(selected=["k-a", "k-b"], project_root=str(outside.parent))
    for m in plan["mutants"]:
        m["file"] = "secret.txt"
    (shard / "plan.json").write_text(json.dumps(plan))
    here = tmp_path / "checkout"
    here.mkdir()
    monkeypatch.chdir(here)  # the merge runs in a checkout; the plan's root is elsewhere
    merge([shard], tmp_path / "out")
    assert "the secret" not in (tmp_path / "out" / "mutation-report.json").read_text()
    assert "is not this folder or below it; the Stryker report carries no sources" in capsys.readouterr().err


def test_a_mutant_file_reaching_out_of_the_project_or_a_symlinked_source_folder_is_not_read(tmp_path: Path) -> None:
    shard = _slice(tmp_path / "s", 1, 1, _row("a") + _row("b"))
    plan = json.loads((shard / "plan.json").read_text())
    plan.update(selected=["k-a", "k-b"])
    plan["mutants"][0]["file"] = "../../etc/passwd"
    (shard / "plan.json").write_text(json.dumps(plan))
    with pytest.raises(ConfigError, match=r"mutant file '\.\./\.\./etc/passwd' is not a path inside the project"):
        merge([shard], tmp_path / "out")
    plan["mutants"][0]["file"] = "m.py"
    (shard / "plan.json").write_text(json.dumps(plan))
    (tmp_path / "secret.txt").write_text("the secret")
    (shard / "mutants").mkdir()
    (shard / "mutants" / "m.py").symlink_to(tmp_path / "secret.txt")
    merge([shard], tmp_path / "out")
    assert (tmp_path / "out" / "mutants" / "m.py").is_symlink()  # copied as a link, never read
