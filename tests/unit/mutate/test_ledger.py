"""Declared mutants: a change must apply exactly, inside its site, or the error names the mutant."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness._errors import HarnessError, InputErrors
from harness._model import Suite
from harness._mutate import check_ledgers
from harness._mutate.ledger import apply_diff, load_ledgers

SITE = '''\
def gate(lane):
    if lane["provider"] == "anthropic" or lane["base_url"] == "https://api.anthropic.com":
        return True
    return False


def other():
    return True
'''


def _suite(tmp_path: Path, mutants: str) -> Path:
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "site.py").write_text(SITE)
    (tmp_path / "x.ledger.yaml").write_text("version: 1\nmutants:\n" + mutants)
    return tmp_path


def _errors(tmp_path: Path, mutants: str) -> list[str]:
    with pytest.raises(InputErrors) as info:
        load_ledgers(_suite(tmp_path, mutants), ["*.ledger.yaml"], tmp_path)
    return [str(e) for e in info.value.errors]


def test_a_find_replace_change_applies_inside_its_function(tmp_path: Path) -> None:
    ledgers = load_ledgers(_suite(tmp_path, '''
  - id: gate-off
    title: gate forced off
    site: {file: pkg/site.py, function: gate}
    change: {find: "        return True\\n", replace: "        return False\\n"}
    killed_by: [case::pin]
'''), ["*.ledger.yaml"], tmp_path)
    (mutant,) = ledgers[0].mutants
    assert mutant.line == 3
    assert "-        return True\n+        return False\n" in mutant.diff
    assert mutant.source.count("return True") == 1  # other() is untouched


def test_find_text_absent_is_an_error_naming_the_mutant(tmp_path: Path) -> None:
    (error,) = _errors(tmp_path, '''
  - id: M9-missing
    title: t
    site: {file: pkg/site.py, function: gate}
    change: {find: "no such text", replace: ""}
    killed_by: [case::pin]
''')
    assert "x.ledger.yaml:7 at mutants[0].change.find" in error and "M9-missing" in error and "no occurrence" in error


def test_find_text_found_twice_is_ambiguous(tmp_path: Path) -> None:
    (error,) = _errors(tmp_path, '''
  - id: M10-ambiguous
    title: t
    site: {file: pkg/site.py}
    change: {find: "return True", replace: "return 1"}
    killed_by: [case::pin]
''')
    assert "M10-ambiguous" in error and "2 occurrences" in error


def test_a_change_outside_its_site_function_is_refused(tmp_path: Path) -> None:
    (error,) = _errors(tmp_path, '''
  - id: M11-elsewhere
    title: t
    site: {file: pkg/site.py, function: other}
    change: {find: "    return False\\n", replace: "    return 0\\n"}
    killed_by: [case::pin]
''')
    assert error.startswith("x.ledger.yaml:7 at mutants[0].change.find: expected find text occurring exactly "
                            "once in the site function for mutant M11-elsewhere, found no occurrence")


def test_an_unknown_site_function_lists_the_known_ones(tmp_path: Path) -> None:
    (error,) = _errors(tmp_path, '''
  - id: M12
    title: t
    site: {file: pkg/site.py, function: gaet}
    change: {find: "x", replace: "y"}
    killed_by: [case::pin]
''')
    assert "gate, other" in error and "'gaet'" in error


def test_claims_and_equivalent_are_mutually_exclusive(tmp_path: Path) -> None:
    errors = _errors(tmp_path, '''
  - id: M13
    title: t
    site: {file: pkg/site.py}
    change: {find: "def other", replace: "def other2"}
    killed_by: [case::pin]
    equivalent: both given
''')
    assert errors == ["x.ledger.yaml:4 at mutants[0]: expected one of killed_by (the pins that kill it), equivalent "
                      "(why no pin can) and survives (why a known escape is let through), found killed_by and "
                      "equivalent (they are mutually exclusive)"]


def test_a_mutant_with_neither_claims_nor_equivalent_says_which_keys_it_needs(tmp_path: Path) -> None:
    errors = _errors(tmp_path, '''
  - id: M13b
    title: t
    site: {file: pkg/site.py}
    change: {find: "def other", replace: "def other2"}
''')
    assert errors == ["x.ledger.yaml:4 at mutants[0]: expected one of killed_by (the pins that kill it), equivalent "
                      "(why no pin can) and survives (why a known escape is let through), found none of them"]


@pytest.mark.parametrize("where", ["../outside.py", "absolute"])
def test_a_site_file_outside_the_project_root_is_an_input_error(tmp_path: Path, where: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside.py"
    outside.write_text(SITE)
    name = str(outside) if where == "absolute" else where
    (error,) = _errors(project, f'''
  - id: M20-outside
    title: t
    site: {{file: "{name}", function: gate}}
    change: {{find: "        return True\\n", replace: "        return False\\n"}}
    killed_by: [case::pin]
''')
    assert error.startswith("x.ledger.yaml:6 at mutants[0].site.file: expected a file under the project root")
    assert f"{name!r}, which resolves outside it" in error and "M20-outside" in error


def test_a_site_file_that_is_not_utf8_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "latin1.py").write_bytes("NAME = 'caf\xe9'\n".encode("latin-1"))
    (error,) = _errors(tmp_path, '''
  - id: M21-latin1
    title: t
    site: {file: pkg/latin1.py}
    change: {find: "NAME", replace: "NOM"}
    killed_by: [case::pin]
''')
    assert error == ("x.ledger.yaml:6 at mutants[0].site.file: expected a UTF-8 text file for mutant M21-latin1, "
                     "found 'pkg/latin1.py', byte 0xe9 at offset 11 not UTF-8")


def test_a_unified_diff_applies_and_a_stale_one_names_the_mutant(tmp_path: Path) -> None:
    good = ('@@ -2,2 +2,2 @@\n'
            '-    if lane["provider"] == "anthropic" or lane["base_url"] == "https://api.anthropic.com":\n'
            '+    if lane["provider"] == "anthropic":\n'
            '         return True\n')
    assert 'lane["base_url"]' not in apply_diff(SITE, good).splitlines()[1]
    with pytest.raises(HarnessError, match="matches 0 places"):
        apply_diff(SITE, "@@ -2,1 +2,1 @@\n-    if stale:\n+    if True:\n")


def test_a_git_diff_applies_with_its_file_headers_no_newline_marker_and_blank_context_lines() -> None:
    # git writes a/ b/ headers and "\\ No newline" markers; an editor may strip a blank context
    # line's leading space: none of them is a line of the change
    diff = ("--- a/pkg/site.py\n+++ b/pkg/site.py\n"
            "@@ -3,4 +3,4 @@\n"
            "         return True\n"
            "-    return False\n"
            "+    return None\n"
            "\\ No newline at end of file\n"
            "\n"
            " \n")
    assert apply_diff(SITE, diff) == SITE.replace("return False", "return None")


def test_a_diff_without_a_hunk_is_refused() -> None:
    with pytest.raises(HarnessError, match="no @@ hunk"):
        apply_diff(SITE, "--- a/pkg/site.py\n+++ b/pkg/site.py\n-    return False\n")


_ENTRY = '''
  - id: M1
    title: t
    site: {file: pkg/site.py, function: gate}
    change: {find: "return True", replace: "return False"}
    killed_by: [case::pin]
'''


def test_a_mutant_id_reused_in_its_own_ledger_or_another_is_an_error_at_each_reuse(tmp_path: Path) -> None:
    _suite(tmp_path, _ENTRY * 2)
    (tmp_path / "y.ledger.yaml").write_text("version: 1\nmutants:\n" + _ENTRY)
    with pytest.raises(InputErrors) as info:
        load_ledgers(tmp_path, ["*.ledger.yaml"], tmp_path)
    assert [str(e) for e in info.value.errors] == [
        "x.ledger.yaml:10 at mutants[1]: expected a mutant id unique in the suite, "
        "found 'M1', also at x.ledger.yaml:4 at mutants[0]",
        "y.ledger.yaml:4 at mutants[0]: expected a mutant id unique in the suite, "
        "found 'M1', also at x.ledger.yaml:10 at mutants[1]",
    ]


def _rounds(tmp_path: Path, *bindings: str) -> Path:
    """One ledger per review round, each declaring M1, bound to the given pin sets."""
    _suite(tmp_path, "")
    (tmp_path / "x.ledger.yaml").unlink()
    for i, sets in enumerate(bindings, 1):
        (tmp_path / f"round{i}.ledger.yaml").write_text(f"version: 1\npin_sets: [{sets}]\nmutants:\n" + _ENTRY)
    return tmp_path


def test_rounds_bound_to_disjoint_pin_sets_may_reuse_an_id_which_their_sets_then_scope(tmp_path: Path) -> None:
    """A ported review numbers each round's mutants from M1: each round's ledger runs with its own
    pin set, and a run of every pin still names each mutant once."""
    ledgers = load_ledgers(_rounds(tmp_path, "r1", "r2", "r3, r4"), ["*.ledger.yaml"], tmp_path)
    assert [m.id for ledger in ledgers for m in ledger.mutants] == ["r1:M1", "r2:M1", "r3+r4:M1"]


def test_an_id_reused_by_ledgers_sharing_a_pin_set_or_one_bound_to_none_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputErrors) as info:
        load_ledgers(_rounds(tmp_path, "r1, r2", "r2, r3"), ["*.ledger.yaml"], tmp_path)
    assert [str(e) for e in info.value.errors] == [
        "round2.ledger.yaml:5 at mutants[0]: expected a mutant id unique in the suite, "
        "found 'M1', also at round1.ledger.yaml:5 at mutants[0] (both run with pin set r2)"]
    (tmp_path / "round2.ledger.yaml").write_text("version: 1\nmutants:\n" + _ENTRY)  # runs with every set
    with pytest.raises(InputErrors, match=re.escape("found 'M1', also at round1.ledger.yaml:5 at mutants")):
        load_ledgers(tmp_path, ["*.ledger.yaml"], tmp_path)


def _checked(folder: Path) -> list[str]:
    """check_ledgers on a suite folder holding only ledgers: no case, lane or pin is needed."""
    (folder / "pyproject.toml").write_text("")
    suite = Suite(root=str(folder), name="s", lanes={}, subjects={}, cases=(),
                  settings={"ledgers": ["**/*.ledger.yaml"]})
    with pytest.raises(InputErrors) as info:
        check_ledgers(suite)
    return [str(e) for e in info.value.errors]


def test_the_ledger_check_names_an_unknown_key_at_its_line(tmp_path: Path) -> None:
    _suite(tmp_path, '''
  - id: gate-off
    title: gate forced off
    site: {file: pkg/site.py, function: gate}
    change: {find: "        return True\\n", replace: "        return False\\n"}
    killed_by: [case::pin]
    colour: red
''')
    (error,) = _checked(tmp_path)
    assert error.startswith("x.ledger.yaml:9 at mutants[0].colour:") and "'colour'" in error


def test_the_ledger_check_names_broken_yaml_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "y.ledger.yaml").write_text("version: 1\nmutants: [\n")
    (error,) = _checked(tmp_path)
    assert error.startswith("sub/y.ledger.yaml:3") and "YAML" in error


def test_the_ledger_check_finds_every_broken_ledger_and_target_at_once(tmp_path: Path) -> None:
    _suite(tmp_path, '''
  - id: twice
    title: t
    site: {file: pkg/site.py}
    change: {find: "return True", replace: "return 1"}
    killed_by: [case::pin]
  - id: elsewhere
    title: t
    site: {file: pkg/nowhere.py}
    change: {find: "x", replace: "y"}
    killed_by: [case::pin]
''')
    (tmp_path / "t.ledger.yaml").write_text("version: 1\ntargets: [pkg/site.py:nope]\nmutants: []\n")
    errors = _checked(tmp_path)
    assert len(errors) == 3, errors
    assert errors[0].startswith("t.ledger.yaml:2 at targets[0]") and "'nope'" in errors[0]
    assert "x.ledger.yaml:7 at mutants[0].change.find" in errors[1] and "2 occurrences" in errors[1]
    assert "x.ledger.yaml:11 at mutants[1].site.file" in errors[2] and "pkg/nowhere.py" in errors[2]


def test_the_ledger_check_of_harness_run_refuses_a_site_and_a_target_outside_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "outside.py").write_text(SITE)
    _suite(project, '''
  - id: M22-outside
    title: t
    site: {file: ../outside.py}
    change: {find: "def other", replace: "def other2"}
    killed_by: [case::pin]
''')
    (project / "t.ledger.yaml").write_text("version: 1\ntargets: [../outside.py:gate]\nmutants: []\n")
    errors = _checked(project)
    assert [e.split(": expected")[0] for e in errors] == ["t.ledger.yaml:2 at targets[0]",
                                                          "x.ledger.yaml:6 at mutants[0].site.file"]
    assert all("which resolves outside it" in e for e in errors)


def test_a_ledger_naming_a_pin_set_the_suite_lacks_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "site.py").write_text(SITE)
    (tmp_path / "x.ledger.yaml").write_text('''version: 1
pin_sets: [r1, r7]
mutants:
  - id: gate-off
    title: gate forced off
    site: {file: pkg/site.py, function: gate}
    change: {find: "        return True\\n", replace: "        return False\\n"}
    killed_by: [case::pin]
''')
    suite = Suite(root=str(tmp_path), name="t", lanes={}, subjects={}, cases=(),
                  settings={"ledgers": ["*.ledger.yaml"], "pin_sets": {"r1": ["case::pin"]}})
    with pytest.raises(InputErrors) as info:
        check_ledgers(suite)
    (error,) = [str(e) for e in info.value.errors]
    assert error.startswith("x.ledger.yaml:2 at pin_sets:") and "(r1)" in error and "'r7'" in error


def test_a_ledger_of_one_round_runs_only_with_that_round_or_with_every_pin(tmp_path: Path) -> None:
    (ledger,) = load_ledgers(_suite(tmp_path, '''
  - id: gate-off
    title: gate forced off
    site: {file: pkg/site.py, function: gate}
    change: {find: "        return True\\n", replace: "        return False\\n"}
    killed_by: [case::pin]
'''), ["*.ledger.yaml"], tmp_path)
    assert ledger.runs_with(None) and ledger.runs_with("r2")  # no pin_sets: every run
    text = (tmp_path / "x.ledger.yaml").read_text().replace("version: 1\n", "version: 1\npin_sets: [r2]\n")
    (tmp_path / "x.ledger.yaml").write_text(text)
    (ledger,) = load_ledgers(tmp_path, ["*.ledger.yaml"], tmp_path)
    assert ledger.pin_sets == ("r2",)
    assert ledger.runs_with(None) and ledger.runs_with("r2") and not ledger.runs_with("r1")
