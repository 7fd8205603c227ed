"""When the mutation engine dies without a word after its baseline, the mutants left run again one
at a time; the first without a row when it dies again killed it, and its row says so (its covering
pins crashed), then the rest run. The engine here is a stand-in that writes rows as the real one
does (tests/e2e/test_mutate_engine.py has the real engine killed by a real mutant)."""

from __future__ import annotations

import json
from pathlib import Path

from harness._mutate.outlive import outlive
from harness._mutate.results import read_rows

PINS = ["t.py::test_add", "t.py::test_sub", "t.py::test_broken"]


def _out(tmp_path: Path, keys: list[str]) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    mutants = [{"key": k, "id": f"m-{k}", "module": "calc", "function": "add" if k != "k3" else "sub"} for k in keys]
    (out / "plan.json").write_text(json.dumps({"selected": keys, "mutants": mutants, "done": []}))
    baseline = {"pins": PINS, "outcomes": {"t.py::test_add": "passed", "t.py::test_sub": "passed",
                                           "t.py::test_broken": "failed"},
                "hits": {"t.py::test_add": ["calc:add"], "t.py::test_sub": ["calc:sub"],
                         "t.py::test_broken": ["calc:add"]}}
    (out / "baseline.json").write_text(json.dumps(baseline))
    return out


def _row(out: Path, key: str, torn: bool = False) -> None:
    with (out / "results.jsonl").open("a") as fh:
        fh.write(json.dumps({"key": key, "id": f"m-{key}", "pins": {"t.py::test_add": "failed"}, "details": {},
                             "unviable": None, "forks": 1, "duration_s": 0.1}) + ("" if torn else "\n"))


def test_the_mutant_that_kills_the_engine_is_recorded_as_crashing_its_pins_and_the_rest_run(tmp_path: Path) -> None:
    out = _out(tmp_path, ["k1", "k2", "k3", "k4"])
    _row(out, "k1")
    passes: list[set[str]] = []

    def engine(done: set[str]) -> tuple[int, bytes | None]:
        """One worker, rows in key order; mutant k2 kills the engine every time it runs."""
        passes.append(set(done))
        for key in ("k1", "k2", "k3", "k4"):
            if key in done:
                continue
            if key == "k2":
                (out / "results.jsonl").open("a").write('{"key": "k2", "torn')  # killed mid-write
                return -9, b""
            _row(out, key)
        return 0, b""

    code, _ = outlive(out, -9, b"", engine)
    assert code == 0
    assert passes == [{"k1"}, {"k1", "k2"}]
    rows = read_rows([out / "results.jsonl"])
    assert set(rows) == {"k1", "k2", "k3", "k4"}
    assert rows["k2"]["pins"] == {"t.py::test_add": "crash"}  # the passing pin that reaches add; not the broken one
    assert "killed the mutation engine (signal SIGKILL)" in rows["k2"]["details"]["t.py::test_add"]


def test_a_killer_no_passing_pin_reaches_is_unviable_with_the_reason(tmp_path: Path) -> None:
    out = _out(tmp_path, ["k3"])
    baseline = json.loads((out / "baseline.json").read_text())
    baseline["outcomes"]["t.py::test_sub"] = "failed"
    (out / "baseline.json").write_text(json.dumps(baseline))
    code, _ = outlive(out, -9, b"", lambda done: (-9, b""))
    assert code == 0
    assert read_rows([out / "results.jsonl"])["k3"]["unviable"].startswith("the mutant killed the mutation engine")


def test_an_engine_that_explained_its_failure_or_died_before_its_baseline_is_left_as_it_ended(tmp_path: Path) -> None:
    out = _out(tmp_path, ["k1"])
    (out / "errors.json").write_text("{}")
    assert outlive(out, 2, b"why", lambda done: (0, b"")) == (2, b"why")
    (out / "errors.json").unlink()
    (out / "baseline.json").unlink()
    assert outlive(out, -9, b"", lambda done: (0, b"")) == (-9, b"")
