"""``harness run --old-ref REV --mutate``: the old side runs the revision's code, outside the
project, so it neither turns the working tree's mutants into whole-file changes nor is played by
the engine from the working tree. Before, every mutant became a file nobody imported (the engine
played both sides in-process from the working tree) and all of them survived: 0 killed.

The revision's side here is another interpreter (what ``side_at`` makes of a ``module:function``
side) for planning, and an in-process callable of the same suite for the engine's table (no
interpreter started in this tier); the end-to-end run on a git repository is
tests/e2e/test_pre_merge_baseline.py's ``--old-ref`` test."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from harness._load import load_suite
from harness._model import PipelineSpec
from harness._mutate import engine
from harness._mutate.plan import Options, plan_document
from harness._mutate.runner import _prepare
from harness._mutate.sides import fixed_specs, play_fixed, spec_document, suites
from harness._pins import cache

SUITE = """version: 1
name: shop
cases: ["*.cases.yaml"]
lanes: ["lanes.yaml"]
subjects:
  shop: {old: "pipe:body", new: "pipe:body", wires: [toy-wire]}
mutation:
  root: "."
  targets: ["pipe.py"]
"""

PIPE = '''def body(inp, lane):
    return {"tools": inp["tools"], "max_tokens": 1024}


def base_body(inp, lane):  # the body as the base commit had it
    return {"tools": inp["tools"]}
'''


@pytest.fixture
def suite_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "suite.yaml").write_text(SUITE)
    (folder / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: plain, wire: toy-wire, provider: toy}\n")
    (folder / "shop.cases.yaml").write_text("version: 1\nsubject: shop\ncases:\n"
                                            "  - id: two\n    tools: [{name: echo}, {name: fetch}]\n")
    (folder / "pipe.py").write_text(PIPE)
    return folder


def _at_revision(folder: Path, tree: Path) -> PipelineSpec:
    """The old side as ``harness._revisions.side_at`` plays it: another interpreter, in the revision's tree."""
    return PipelineSpec(kind="python", call="pipe:body", python=sys.executable, cwd=str(tree), path=(str(tree),),
                        root=str(tree))


def test_a_side_at_a_revision_leaves_the_working_tree_s_mutants_switched_in_process_and_goes_to_the_engine(
        suite_folder: Path, tmp_path: Path) -> None:
    loaded = load_suite(suite_folder)
    old = _at_revision(suite_folder, tmp_path / "worktree" / "suite")
    subject = loaded.subjects["shop"]
    at_rev = dataclasses.replace(loaded, subjects={"shop": dataclasses.replace(
        subject, pipelines={"old": old, "new": subject.pipeline("new")})})
    plan, _ = _prepare(at_rev, Options(out=tmp_path / "out", revisions=("old",)))
    assert plan.mutants and {m.how for m in plan.mutants} == {"switch"}  # the new side's module, trampolined
    fixed = json.loads(json.dumps(plan_document(plan, 1, set())["fixed_sides"]))
    assert fixed == {"shop": {"old": json.loads(json.dumps(spec_document(old)))}}
    # the same side without --old-ref is a working-tree pipeline in another interpreter: whole files
    plan, _ = _prepare(at_rev, Options(out=tmp_path / "out2"))
    assert {m.how for m in plan.mutants} == {"file"}


def test_the_engine_plays_the_revision_s_side_and_keeps_its_observations_across_mutants(suite_folder: Path) -> None:
    suite = cache.suite_for(suite_folder)
    base = PipelineSpec(kind="python", call="pipe:base_body", root=str(suite_folder))
    try:
        play_fixed({"shop": {"old": spec_document(base)}})
        played = suites()[str(suite_folder.resolve())]
        assert played.subjects["shop"].pipeline("old") == base and fixed_specs() == {base}
        assert played.subjects["shop"].pipeline("new").call == "pipe:body"
        old = cache.observe(played, "two", "plain", "old")
        new = cache.observe(played, "two", "plain", "new")
        assert "max_tokens" not in old.value  # the revision's code ran
        assert new.value["max_tokens"] == 1024
        engine._clear_cache()  # what each mutant's row does first
        kept = {key[3] for key in cache._observations if key[0] == played.root}
        assert kept == {"old"}, "the working tree's side must run again under the mutant; the revision's need not"
    finally:
        play_fixed({})
        cache.clear()
        cache._suites.pop(str(suite_folder.resolve()), None)
    assert suite is not None and fixed_specs() == frozenset()
