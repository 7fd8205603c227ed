"""``harness ...`` run in this test process, through the console script's own ``main()``: the
same exit codes, stdout and stderr as ``python -m harness ...`` gives, without starting an
interpreter and importing the package again (about 0.6 CPU seconds a call, most of what a
bad-argument test costs). For tests whose subject is what a command says and returns, not the
process boundary: signals, a fresh interpreter's imports and installed entry points keep their
real subprocess (tests/README.md, "Tiers")."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner

from harness._cli.main import main

__all__ = ["harness_main"]


def harness_main(*args: str, cwd: Path | None = None,
                 env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``harness *args`` in this process, in ``cwd``, with ``env`` set on top of this process's
    environment for the call; stdout and stderr apart, as a subprocess's would be."""
    before, argv, code = Path.cwd(), sys.argv, 0
    with CliRunner().isolation(env=dict(env or {})) as (out, err, _):
        try:
            os.chdir(cwd or before)
            sys.argv = ["harness", *args]  # main() reads them there, as the console script does
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        finally:
            sys.argv = argv
            os.chdir(before)
        stdout, stderr = (stream.getvalue().decode("utf-8", "replace") for stream in (out, err))
    return subprocess.CompletedProcess(["harness", *args], code, stdout, stderr)


def this_python_first_on_path() -> dict[str, str]:
    """``PATH`` with this interpreter's folder first, for ``harness_main(env=...)``: ``python3`` in
    a suite's command is then the tests' own interpreter (a venv holds ``python3`` beside
    ``python``) rather than whatever PATH finds first, such as a version manager's shim (pyenv's
    is a bash script: about 0.1 CPU seconds more a start)."""
    return {"PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
