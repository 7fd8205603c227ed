"""The cassette builder: deterministic, and the committed catalog is what it builds."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest
import yaml

from harness._reject.build import build_catalog, merge_patch, response_body
from harness._reject.rules import Rule, RuleSet, load_rules
from tests.unit.reject.scenario import bundled_catalog

REPO = Path(__file__).resolve().parents[3]


def test_merge_patch_merges_objects_deletes_nulls_and_replaces_the_rest() -> None:
    base = {"a": {"b": 1, "c": 2}, "d": [1]}
    assert merge_patch(base, {"a": {"b": None, "e": 3}, "d": [2]}) == {"a": {"c": 2, "e": 3}, "d": [2]}
    assert base == {"a": {"b": 1, "c": 2}, "d": [1]}


def test_an_envelope_the_source_showed_is_used_as_reported() -> None:
    receipt = {"error_text": 'a "quoted" message', "provider_family": "anthropic",
               "envelope": '{"type":"error","error":{"type":"invalid_request_error","message":"<text>"}}'}
    body, kind = response_body(receipt)
    assert kind == "as-reported" and body["error"]["message"] == 'a "quoted" message'


def test_a_gateway_envelope_keeps_the_upstream_body_as_a_string() -> None:
    receipt = {"error_text": "bad\nthing", "provider_family": "fireworks", "envelope":
               '{"code":400,"metadata":{"raw":"{\\"error\\":{\\"message\\":\\"<text>\\"}}"}}'}
    body, kind = response_body(receipt)
    assert kind == "as-reported"
    assert '"message": "bad\\nthing"' in body["metadata"]["raw"]


def test_a_message_only_source_gets_the_documented_envelope() -> None:
    body, kind = response_body({"error_text": "m", "provider_family": "google-gemini-api",
                                "envelope": "message only"})
    assert kind == "documented-shape" and body["error"]["status"] == "INVALID_ARGUMENT"


def test_the_committed_cassettes_of_a_rule_of_each_validator_are_exactly_what_the_builder_makes(
        tmp_path: Path, shared: Path) -> None:
    """The first rule of each validator (20 of the 93) built from both receipts files: each
    cassette, and each manifest entry, is the committed one byte for byte. The whole catalog,
    manifest file included, is tests/e2e/test_committed_catalog.py's (expensive: its YAML
    emitting and secret scans are about half a CPU second)."""
    firsts: dict[str, Rule] = {}
    for rule in bundled_catalog().rules.rules:
        if rule.receipts:
            firsts.setdefault(rule.validator, rule)
    out = tmp_path / "cassettes"
    counts = build_catalog([shared / "receipts" / "receipts.jsonl", REPO / "cassettes" / "receipts.jsonl"],
                           RuleSet(tuple(firsts.values())), out)
    assert counts["rules"] == len(firsts) >= 15
    built = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml") if p.name != "manifest.yaml")
    assert len(built) > len(firsts)  # each rule's cassette, and the accepted examples
    _, mismatch, errors = filecmp.cmpfiles(out, REPO / "cassettes", built, shallow=False)
    assert mismatch == [] and errors == []
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's: the whole manifest in 0.02 CPU s, not 0.13
    committed = yaml.load((REPO / "cassettes" / "manifest.yaml").read_text(), Loader=loader)["interactions"]
    for entry in yaml.load((out / "manifest.yaml").read_text(), Loader=loader)["interactions"]:
        assert entry in committed, entry["id"]


def test_a_receipt_id_two_receipts_files_give_is_bad_input_naming_the_second(tmp_path: Path) -> None:
    from harness._errors import InputError

    line = '{"id": "X1", "provider": "p", "status": 400, "error_text": "m"}\n'
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(line)
    second.write_text(line)
    rules = bundled_catalog().rules  # the bundled rules, loaded once per worker
    with pytest.raises(InputError, match=r"b\.jsonl.*'X1', also in .*a\.jsonl"):
        build_catalog([first, second], rules, tmp_path / "out")
    assert not (tmp_path / "out").exists()  # refused before anything was written


def test_no_bundled_cassette_has_a_metadata_block() -> None:
    for path in (REPO / "cassettes").rglob("*.yaml"):
        if path.name != "manifest.yaml":
            assert "\nmetadata:" not in path.read_text() and not path.read_text().startswith("metadata:")


@pytest.mark.parametrize("missing", ["receipts.jsonl"])
def test_a_missing_receipts_file_is_a_clear_error(tmp_path: Path, missing: str) -> None:
    from harness._errors import ConfigError
    from harness._reject.rules import RuleSet

    with pytest.raises(ConfigError, match="--receipts"):
        build_catalog(tmp_path / missing, RuleSet(()), tmp_path / "out")


_FAKE_KEY = "sk-ant-api03-" + "FAKExKEYx" * 6  # the shape of a key, never a real one


def _tiny_build_inputs(tmp_path: Path, error_text: str) -> tuple[Path, Path]:
    """A one-rule rules folder and a one-receipt receipts.jsonl whose error text is given."""
    import json

    import yaml

    from tests.unit.reject.scenario import RULE

    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "demo.rules.yaml").write_text(yaml.safe_dump({"version": 1, "rules": [RULE]}, sort_keys=False))
    receipt = {"id": "D1", "provider": "Anthropic", "status": 400, "error_text": error_text,
               "source_url": "https://example.org/report/1", "date": "2026-01-02",
               "provider_family": "anthropic", "envelope": "message only"}
    receipts = tmp_path / "receipts.jsonl"
    receipts.write_text(json.dumps(receipt) + "\n")
    return rules, receipts


def test_a_receipt_carrying_a_key_is_refused_by_name_and_nothing_is_written(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from harness._cli.main import cli

    rules, receipts = _tiny_build_inputs(tmp_path, f"tools.1.custom.input_schema: bad key={_FAKE_KEY}")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["cassettes", "build", "--receipts", str(receipts), "--rules", str(rules),
                                      "--out", str(out)])
    assert result.exit_code == 2
    assert "receipt D1" in result.output and "anthropic/demo.root-composition.yaml" in result.output
    assert "anthropic-key" in result.output and _FAKE_KEY not in result.output and "FAKExKEY" not in result.output
    assert not out.exists()


def test_a_refused_rebuild_leaves_the_previous_catalog_untouched(tmp_path: Path) -> None:
    from harness._errors import SecretError

    rules_dir, clean = _tiny_build_inputs(tmp_path, "tools.1.custom.input_schema: input_schema is bad")
    rules = load_rules(sorted(rules_dir.glob("*.rules.yaml")), rules_dir)
    out = tmp_path / "out"
    build_catalog(clean, rules, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    leaky = tmp_path / "leaky.jsonl"
    leaky.write_text(clean.read_text().replace("is bad", f"is bad {_FAKE_KEY}"))
    with pytest.raises(SecretError, match="receipt D1"):
        build_catalog(leaky, rules, out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_a_receipt_without_an_id_is_an_input_error_naming_its_line(tmp_path: Path) -> None:
    from harness._errors import InputError
    from harness._reject.build import load_receipts

    path = tmp_path / "receipts.jsonl"
    path.write_text('{"id": "A"}\n\n{"status": 400}\n')
    with pytest.raises(InputError, match=r"receipts.jsonl:3"):
        load_receipts(path)


@pytest.mark.parametrize(("line", "found"), [("[1, 2]", "found list"), ('{"id": 5}', "found id=5"),
                                            ("not json", "one JSON object a line")])
def test_a_receipt_line_that_is_no_object_with_a_string_id_is_an_input_error_saying_what_it_found(
        tmp_path: Path, line: str, found: str) -> None:
    from harness._errors import InputError
    from harness._reject.build import load_receipts

    path = tmp_path / "receipts.jsonl"
    path.write_text('{"id": "A"}\n' + line + "\n")
    with pytest.raises(InputError, match=r"receipts.jsonl:2") as caught:
        load_receipts(path)
    assert found in str(caught.value)


@pytest.mark.parametrize("previous", ["", "null\n", "[]\n", "version: 1\n", "interactions: [1, two]\n"])
def test_a_previous_manifest_with_no_entries_to_keep_builds_as_if_there_were_none(
        tmp_path: Path, previous: str) -> None:
    rules_dir, receipts = _tiny_build_inputs(tmp_path, "tools.1.custom.input_schema: input_schema is bad")
    rules = load_rules(sorted(rules_dir.glob("*.rules.yaml")), rules_dir)
    fresh, over = tmp_path / "fresh", tmp_path / "over"
    over.mkdir()
    (over / "manifest.yaml").write_text(previous)
    assert build_catalog(receipts, rules, over) == build_catalog(receipts, rules, fresh)
    assert (over / "manifest.yaml").read_bytes() == (fresh / "manifest.yaml").read_bytes()


def _catalog_copy(tmp_path: Path) -> tuple[Path, dict[Path, bytes]]:
    """A copy of the bundled catalog to build over, and its bytes before the build."""
    import shutil

    out = tmp_path / "cassettes"
    shutil.copytree(REPO / "cassettes", out)
    return out, {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}


@pytest.mark.parametrize("where", ["missing", "a-file", "empty-folder", "folder-of-other-files"])
def test_a_rules_argument_that_holds_no_rules_is_bad_input_and_deletes_nothing(tmp_path: Path, where: str) -> None:
    from click.testing import CliRunner

    from harness._cli.main import cli

    _, receipts = _tiny_build_inputs(tmp_path, "tools.1.custom.input_schema: input_schema is bad")
    rules = tmp_path / "given"
    if where == "a-file":
        rules.write_text("# a README, not a folder of rules\n")
    elif where != "missing":
        rules.mkdir()
        if where == "folder-of-other-files":
            (rules / "README.md").write_text("no rules here\n")
    out, before = _catalog_copy(tmp_path)
    result = CliRunner().invoke(cli, ["cassettes", "build", "--receipts", str(receipts), "--rules", str(rules),
                                      "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "--rules" in result.output and "nothing was built or deleted" in result.output
    assert not result.output.startswith("built")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_building_from_an_empty_rule_set_is_refused_before_anything_is_deleted(tmp_path: Path) -> None:
    from harness._errors import ConfigError
    from harness._reject.rules import RuleSet

    _, receipts = _tiny_build_inputs(tmp_path, "tools.1.custom.input_schema: input_schema is bad")
    out, before = _catalog_copy(tmp_path)
    with pytest.raises(ConfigError, match="at least one rule"):
        build_catalog(receipts, RuleSet(()), out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
