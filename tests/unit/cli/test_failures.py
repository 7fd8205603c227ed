"""What the `harness` group prints and exits with when a command raises: one redacted line on
stderr and the exit code of harness/_exitcodes.py, for each kind of failure."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from harness._cli.main import _Group
from harness._common.supervise import Terminated
from harness._errors import ConfigError, HarnessError, InputError, InputErrors, Place
from harness._exitcodes import ExitCode

KEY = "sk-ant-api03-" + "a" * 40  # the shape of an Anthropic key: redacted wherever it appears


def _group(raised: BaseException) -> click.Group:
    @click.group(cls=_Group)
    @click.option("--debug", is_flag=True)
    def group(debug: bool) -> None:
        """A group like `harness`, with one command that raises."""

    @group.command("boom")
    def boom() -> None:
        raise raised

    return group


def _invoke(raised: BaseException, *args: str) -> tuple[int, str]:
    got = CliRunner().invoke(_group(raised), [*args, "boom"])
    return got.exit_code, got.stderr


@pytest.mark.parametrize(("raised", "line", "code"), [
    (ConfigError("--lane", "x", "a lane"), "harness: bad argument: --lane='x': expected a lane\n",
     ExitCode.BAD_INPUT),
    (InputErrors([InputError(Place("f.yaml", 3, "cases[0]"), "a case", "nothing")]),
     "harness: 1 input error(s):\n  f.yaml:3 at cases[0]: expected a case, found nothing\n", ExitCode.BAD_INPUT),
    (HarnessError(f"bad key {KEY}"), "harness: bad key [REDACTED:anthropic-key]\n", ExitCode.BAD_INPUT),
    (FileNotFoundError(2, "No such file or directory", "gone.json"),
     "harness: gone.json: No such file or directory\n", ExitCode.BAD_INPUT),
    (OSError("disk said no"), "harness: disk said no\n", ExitCode.BAD_INPUT),
    (KeyboardInterrupt(), "harness: interrupted\n", ExitCode.INTERRUPTED),
    (Terminated(), "harness: stopped by SIGTERM\n", ExitCode.TERMINATED),
    (ValueError(f"leaked {KEY}"),
     "harness: internal error ValueError: leaked [REDACTED:anthropic-key] (a bug; rerun with --debug)\n",
     ExitCode.INTERNAL),
])
def test_each_failure_prints_one_redacted_line_and_exits_with_its_code(raised: BaseException, line: str,
                                                                         code: ExitCode) -> None:
    assert _invoke(raised) == (code, line)


def test_debug_lets_an_internal_error_through_with_its_traceback() -> None:
    got = CliRunner().invoke(_group(ValueError("a bug")), ["--debug", "boom"])
    assert isinstance(got.exception, ValueError) and got.stderr == ""


def test_debug_still_turns_a_bad_argument_into_exit_2() -> None:
    assert _invoke(ConfigError("X", None, "y"), "--debug") == (ExitCode.BAD_INPUT,
                                                               "harness: bad argument: X not given: expected y\n")


@pytest.mark.parametrize("raised", [click.exceptions.Exit(4), SystemExit(4)])
def test_an_exit_asked_for_passes_through_untouched(raised: BaseException) -> None:
    assert _invoke(raised) == (4, "")


def test_a_base_exception_the_harness_does_not_know_is_not_swallowed() -> None:
    with pytest.raises(GeneratorExit):
        CliRunner().invoke(_group(GeneratorExit()), ["boom"])
