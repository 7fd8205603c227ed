"""Which rules a suite checks bodies against: the bundled catalog when it names none and holds
none (wherever the suite is), its own rules files when it has them, nothing only when it says
``rules: none``, and an error naming the fix when its globs find no file."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._catalog import catalog_path
from harness._errors import InputError
from harness._reject.cassettes import load_catalog
from harness._reject.verdicts import cached_catalog
from harness._settings import Settings, read_settings
from tests.unit.reject.scenario import write_scenario


def _suite(tmp_path: Path, suite_yaml: str) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "suite.yaml").write_text("version: 1\n" + suite_yaml)
    return folder


def _catalog(folder: Path):  # type: ignore[no-untyped-def]
    settings, _ = read_settings(folder)
    return cached_catalog(str(folder), settings.cassettes, settings.rules)


def test_a_suite_that_names_no_rules_and_holds_none_gets_the_bundled_rules_and_their_receipts(
        tmp_path: Path) -> None:
    catalog = _catalog(_suite(tmp_path, ""))
    ids = {rule.id for rule in catalog.rules.rules}
    assert "anthropic.root-composition" in ids and len(ids) > 50
    assert Path(catalog.folder) == catalog_path("cassettes")
    assert catalog.backing("anthropic.root-composition"), "the bundled rule came without its receipts"
    assert all(not Path(rule.file).is_absolute() for rule in catalog.rules.rules)  # rules/x.rules.yaml


def test_rules_bundled_said_explicitly_is_the_same_catalog(tmp_path: Path) -> None:
    (tmp_path / "said").mkdir()
    said = _catalog(_suite(tmp_path / "said", "rules: bundled\n"))
    assert {r.id for r in said.rules.rules} == {r.id for r in _catalog(_suite(tmp_path, "")).rules.rules}


def test_a_suite_holding_its_own_rules_files_keeps_them_and_not_the_bundled_ones(tmp_path: Path) -> None:
    suite = write_scenario(tmp_path)
    (suite / "suite.yaml").write_text("version: 1\ncassettes: cassettes\n")  # no rules: key
    catalog = load_catalog(suite, Settings.parse({"cassettes": "cassettes"}))
    assert [rule.id for rule in catalog.rules.rules] == ["demo.root-composition"]


def test_rules_none_is_no_rules_on_purpose(tmp_path: Path) -> None:
    assert _catalog(_suite(tmp_path, "rules: none\n")).rules.rules == ()


@pytest.mark.parametrize("rules", ["[rules/*.rules.yaml]", "[nothing.rules.yaml, rules/*.yaml]"])
def test_rules_globs_that_find_no_file_are_an_error_naming_the_fix(tmp_path: Path, rules: str) -> None:
    folder = _suite(tmp_path, f"name: x\nrules: {rules}\n")
    with pytest.raises(InputError) as caught:
        _catalog(folder)
    assert caught.value.place.file.endswith("suite.yaml") and caught.value.place.line == 3
    assert caught.value.place.path == "rules"
    assert "rules: none" in caught.value.expected and "bundled catalog" in caught.value.expected
    assert "matching no file" in caught.value.found


@pytest.mark.parametrize(("raw", "read"), [({}, None), ({"rules": "none"}, "none"), ({"rules": "bundled"}, "bundled"),
                                           ({"rules": ["a/*.yaml"]}, ("a/*.yaml",)), ({"rules": []}, None)])
def test_the_rules_setting_reads_as_written(raw: dict[str, object], read: object) -> None:
    assert Settings.parse(raw).rules == read
