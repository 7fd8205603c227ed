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
import tempfile
from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner

from harness._cli.main import main

__all__ = ["harness_main", "harness_main_on_fds", "python3_first_on_path"]


def _exit_code(args: tuple[str, ...], cwd: Path | None) -> int:
    """``main()`` on ``args`` in ``cwd``, as the console script calls it; its exit code. The
    working folder and ``sys.argv`` are put back after."""
    before, argv = Path.cwd(), sys.argv
    try:
        os.chdir(cwd or before)
        sys.argv = ["harness", *args]  # main() reads them there, as the console script does
        main()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    finally:
        sys.argv = argv
        os.chdir(before)
    return 0


def harness_main(*args: str, cwd: Path | None = None,
                 env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``harness *args`` in this process, in ``cwd``, with ``env`` set on top of this process's
    environment for the call; stdout and stderr apart, as a subprocess's would be."""
    with CliRunner().isolation(env=dict(env or {})) as (out, err, _):
        code = _exit_code(args, cwd)
        stdout, stderr = (stream.getvalue().decode("utf-8", "replace") for stream in (out, err))
    return subprocess.CompletedProcess(["harness", *args], code, stdout, stderr)


def harness_main_on_fds(*args: str, cwd: Path | None = None,
                        env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``harness_main``, but stdout and stderr are this process's file descriptors 1 and 2 (each
    a temporary file for the call), as a console script has them. ``harness_main``'s streams are
    in memory: a build worker forked from it prints into its own copy of them and the line is
    lost, where a real run's worker prints down its descriptor to the harness's echo (and its
    redactor). Use this one when what pipelines print is part of what the test asserts."""
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        with CliRunner().isolation(env=dict(env or {})):  # the environment, click's state; streams below
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            try:  # the streams close (and flush) on the way out; the descriptors stay open
                with (open(1, "w", encoding="utf-8", closefd=False) as sys.stdout,
                      open(2, "w", encoding="utf-8", closefd=False) as sys.stderr):
                    code = _exit_code(args, cwd)
            finally:
                for fd, was in zip((1, 2), saved, strict=True):
                    os.dup2(was, fd)
                    os.close(was)
        out.seek(0)
        err.seek(0)
        stdout, stderr = (f.read().decode("utf-8", "replace") for f in (out, err))
    return subprocess.CompletedProcess(["harness", *args], code, stdout, stderr)


def python3_first_on_path(folder: Path) -> dict[str, str]:
    """``PATH`` for ``harness_main(env=...)`` with ``folder`` first, holding only ``python3``: the
    interpreter this one's venv was made from, as PATH finds it with the venv not activated,
    without a version manager's shim in between (pyenv's is a bash script: about 0.1 CPU seconds
    more a start, and a run starts ``python3`` once a side)."""
    base = Path(sys.base_prefix) / "bin" / "python3"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "python3").exists():
        (folder / "python3").symlink_to(base if base.is_file() else Path(sys.executable))
    return {"PATH": os.pathsep.join([str(folder), os.environ.get("PATH", "")])}
