"""The ``harness`` command: a click group whose subcommands live one a module beside this one.

Every subcommand returns an ExitCode. HarnessErrors become one message on stderr and exit 2;
anything else is a harness bug: one line naming it and exit 70 (``--debug`` shows the trace).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from harness._common.redact import redactor
from harness._common.supervise import Terminated, terminating
from harness._errors import ConfigError, HarnessError, InputErrors
from harness._exitcodes import ExitCode

__all__ = ["COMMAND_MODULES", "cli", "main"]

# One module a command, each exposing ``command`` (a click.Command). Order is help order.
COMMAND_MODULES: tuple[str, ...] = (
    "harness._cli.run",
    "harness._cli.check_lane",
    "harness._cli.cassettes",
    "harness._cli.replay",
    "harness._cli.probe",
    "harness._cli.mutate",
    "harness._cli.merge",
    "harness._cli.openapi",
    "harness._cli.protocol_check",
    "harness._cli.catalog",
    "harness._cli.show",
    "harness._cli.bless",
)


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        debug = bool(ctx.params.get("debug"))
        try:
            return super().invoke(ctx)
        except InputErrors as exc:
            click.echo(redactor().text(f"harness: {exc}"), err=True)
            ctx.exit(ExitCode.BAD_INPUT)
        except ConfigError as exc:
            click.echo(redactor().text(f"harness: bad argument: {exc}"), err=True)
            ctx.exit(ExitCode.BAD_INPUT)
        except HarnessError as exc:
            click.echo(redactor().text(f"harness: {exc}"), err=True)
            ctx.exit(ExitCode.BAD_INPUT)
        except (click.exceptions.Exit, click.ClickException, click.Abort, SystemExit):
            raise
        except OSError as exc:  # a path the user gave that cannot be read or written
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(redactor().text(f"harness: {where}{exc.strerror or exc}"), err=True)
            ctx.exit(ExitCode.BAD_INPUT)
        except KeyboardInterrupt:
            click.echo("harness: interrupted", err=True)
            ctx.exit(ExitCode.INTERRUPTED)
        except Terminated:
            click.echo("harness: stopped by SIGTERM", err=True)
            ctx.exit(ExitCode.TERMINATED)
        except Exception as exc:
            if debug:
                raise
            message = redactor().text(f"{type(exc).__name__}: {exc}")
            click.echo(f"harness: internal error {message} (a bug; rerun with --debug)", err=True)
            ctx.exit(ExitCode.INTERNAL)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
@click.version_option(package_name="wire-harness")
def cli(debug: bool) -> None:
    """Conformance and mutation-testing harness for provider wire output."""


for _name in COMMAND_MODULES:
    cli.add_command(importlib.import_module(_name).command)


def main() -> None:
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
