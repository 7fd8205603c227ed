"""The ``harness`` command: a click group whose subcommands live one a module beside this one.

Every subcommand returns an ExitCode. HarnessErrors become one message on stderr and exit 2;
anything else is a harness bug: one line naming it and exit 70 (``--debug`` shows the trace).
Whatever a command prints, on stdout or stderr, passes one redacting writer
(``harness._common.redact.redacting_output``): a command cannot forget to redact.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from types import TracebackType
from typing import Any

import click

from harness._common.redact import redacting_output, redactor
from harness._common.supervise import Terminated, terminating
from harness._errors import ConfigError, HarnessError
from harness._exitcodes import ExitCode

__all__ = ["COMMAND_MODULES", "cli", "main"]

# One module a command, each exposing ``command`` (a click.Command), imported when that command
# runs: `harness show` or `harness replay` need not import the run stage's deepdiff and vcrpy.
# Order is help order.
COMMAND_MODULES: dict[str, str] = {
    "init": "harness._cli.init",
    "run": "harness._cli.run",
    "check-lane": "harness._cli.check_lane",
    "cassettes": "harness._cli.cassettes",
    "replay": "harness._cli.replay",
    "probe": "harness._cli.probe",
    "mutate": "harness._cli.mutate",
    "merge": "harness._cli.merge",
    "openapi": "harness._cli.openapi",
    "protocol-check": "harness._cli.protocol_check",
    "catalog": "harness._cli.catalog",
    "show": "harness._cli.show",
    "bless": "harness._cli.bless",
    "revisions": "harness._cli.revisions",
}


# What a failure prints and exits with; the first kind the exception is wins. click's own exits
# and SystemExit pass through untouched, and so does any BaseException not listed. The printed
# text is redacted: an exception's message can carry a pipeline's credential.
_FAILURES: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], tuple[str, ExitCode] | None], ...] = (
    ((click.exceptions.Exit, click.ClickException, click.Abort, SystemExit), None),
    (ConfigError, ("harness: bad argument: {exc}", ExitCode.BAD_INPUT)),
    (HarnessError, ("harness: {exc}", ExitCode.BAD_INPUT)),
    (OSError, ("harness: {where}{why}", ExitCode.BAD_INPUT)),  # a path the user gave that cannot be read or written
    (KeyboardInterrupt, ("harness: interrupted", ExitCode.INTERRUPTED)),
    (Terminated, ("harness: stopped by SIGTERM", ExitCode.TERMINATED)),
)
# Anything else is a harness bug; with --debug it is not caught, so its traceback shows.
_INTERNAL = (Exception, ("harness: internal error {kind}: {exc} (a bug; rerun with --debug)", ExitCode.INTERNAL))


def _failure(exc: BaseException, debug: bool) -> tuple[str, ExitCode] | None:
    """What ``exc`` prints and exits with, or None when it passes through."""
    rows = _FAILURES if debug else (*_FAILURES, _INTERNAL)
    return next((failure for kinds, failure in rows if isinstance(exc, kinds)), None)


def _message(template: str, exc: BaseException) -> str:
    filename = getattr(exc, "filename", None)  # an OSError's path, when it has one
    return redactor().text(template.format(exc=exc, kind=type(exc).__name__, where=f"{filename}: " if filename else "",
                                           why=getattr(exc, "strerror", None) or exc))


class _Group(click.Group):
    """A group whose commands' failures become one line and an exit code."""

    def invoke(self, ctx: click.Context) -> Any:
        with redacting_output():
            try:
                return super().invoke(ctx)
            except BaseException as exc:
                failure = _failure(exc, bool(ctx.params.get("debug")))
                if failure is None:
                    raise
                click.echo(_message(failure[0], exc), err=True)
                ctx.exit(failure[1])


class _Commands(_Group):
    """The ``harness`` group: each command's module imported when that command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMAND_MODULES)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is None:
            return None
        command: click.Command = importlib.import_module(module).command
        return command


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
@click.version_option(package_name="wire-harness")
def cli(debug: bool) -> None:
    """Conformance and mutation-testing harness for provider wire output."""


def _redacted_traceback(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """``--debug``'s traceback, printed by the interpreter after the command's writer is gone,
    redacted like everything else the harness prints (an exception's message can carry a key)."""
    text = "".join(traceback.format_exception(kind, value, tb))
    sys.stderr.write(redactor().redact(text))


def main() -> None:
    sys.excepthook = _redacted_traceback
    try:
        with terminating():  # SIGTERM unwinds like Ctrl-C: children ended, partial report written
            rv = cli.main(prog_name="harness", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(ExitCode.BAD_INPUT)
    except click.Abort:
        sys.exit(130)
    sys.exit(int(rv) if isinstance(rv, int) else 0)
