"""A worker sends each distinct body of a case once: equal wire bytes (old and new alike, one
tool on many lanes) reach the parent as one object, pickled once and kept once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness._differential import build
from harness._load import load_suite


def eight_plain_cases(tmp: Path, scenarios: Path) -> Path:
    root = tmp / "toy"
    shutil.copytree(scenarios / "suites" / "toy", root)
    lines = ["version: 1", "subject: toy", "cases:"]
    for i in range(8):
        lines += [f"  - id: case-{i}", f"    tools: [{{name: t{i}}}]",
                  "    expect: {fancy: {diverges: {why: upper, paths: ['tools[*].name']}}}"]
    (root / "toy.cases.yaml").write_text("\n".join(lines) + "\n")
    return root


@pytest.mark.parametrize("workers", [0, 1])
def test_equal_bodies_of_a_case_arrive_as_one_object(tmp_path: Path, scenarios: Path, workers: int) -> None:
    results = build(load_suite(eight_plain_cases(tmp_path, scenarios)), workers=workers)
    plain, fancy = results[0], results[1]  # case-0: old ignores the lane; new differs on fancy only
    assert plain.old is not None and plain.new is not None and fancy.old is not None and fancy.new is not None
    assert plain.old.wire == plain.new.wire == fancy.old.wire != fancy.new.wire
    assert plain.new.wire is plain.old.wire and fancy.old.wire is plain.old.wire
    assert [r.verdict and r.verdict.kind for r in results[:2]] == ["identical", "intended"]
