"""`harness protocol-check --lane/--input`: a file that is not the JSON asked for is a bad argument
naming its option, before any program starts."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from harness._cli.main import cli
from harness._exitcodes import ExitCode


def _check(*args: str) -> tuple[int, str]:
    got = CliRunner().invoke(cli, ["protocol-check", *args, "--", "no-such-program-is-started"])
    return got.exit_code, got.stderr


def test_a_lane_that_is_not_a_json_object_is_a_bad_argument(tmp_path: Path) -> None:
    lane = tmp_path / "lane.json"
    lane.write_text("[1, 2]")
    assert _check("--lane", str(lane)) == (ExitCode.BAD_INPUT, f"harness: bad argument: --lane='{lane}': "
                                           "expected a JSON object (a lane)\n")


def test_an_unreadable_or_malformed_file_names_its_option(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    code, err = _check("--input", str(bad))
    assert code == ExitCode.BAD_INPUT
    assert err.startswith(f"harness: bad argument: --input='{bad}': expected a JSON file (")
    code, err = _check("--input", str(tmp_path / "missing.json"))
    assert code == ExitCode.BAD_INPUT and "expected a readable JSON file (No such file or directory)" in err


def test_with_both_files_bad_the_lane_is_named_first(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    code, err = _check("--input", str(bad), "--lane", str(bad))
    assert code == ExitCode.BAD_INPUT and err.startswith(f"harness: bad argument: --lane='{bad}'")


def test_a_negative_zero_or_nan_timeout_is_a_bad_argument_before_any_program_starts() -> None:
    for option in ("--timeout", "--start-timeout"):
        for value in ("-1", "0", "nan", "1e9"):
            code, err = _check(option, value)
            assert code == ExitCode.BAD_INPUT and option in err, (option, value, code, err)


def test_an_input_nested_past_pythons_recursion_limit_is_a_bad_argument_naming_its_option(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    for option in ("--input", "--lane"):
        code, err = _check(option, str(deep))
        assert code == ExitCode.BAD_INPUT, (option, code, err)
        assert err.startswith(f"harness: bad argument: {option}='{deep}': expected a JSON file ("), err
        assert "recursion" in err
