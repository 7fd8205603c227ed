"""Virtual environments for released versions: ``{package: "litellm==1.74.0", call: "mod:fn"}``.

One environment per set of requirements, under ``<cache>/envs/<hash>/``, where the hash covers
the requirements (sorted) and the interpreter that makes the environment. The first run
provisions it (stdlib ``venv`` without pip, then this interpreter's pip installs into it with
``--python``: no ensurepip, about 8 s saved per environment); a marker written last
(``ready.json``) makes every later run reuse it without starting pip, so offline. A file lock
serialises two runs provisioning the same environment; a folder without its marker (a run killed
mid-install) is wiped and made again.

Why venv + pip and not tox: tox makes environments for a project's own ``tox.ini``; driving it
here would mean writing a configuration per requirement set and parsing its output, for the same
``venv`` + ``pip`` underneath. The stdlib does the job with nothing to install and errors we can
name (pip's own last lines).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from harness._common import supervise
from harness._errors import ConfigError, SubjectError
from harness._model import PipelineSpec

__all__ = ["INSTALL_TIMEOUT_S", "cache_root", "env_folder", "env_python", "provision"]

INSTALL_TIMEOUT_S = 1800.0
_PROGRESS = ("Collecting", "Processing", "Installing", "Successfully", "Looking in")


def cache_root() -> Path:
    """``$HARNESS_CACHE``, else ``${XDG_CACHE_HOME:-~/.cache}/wire-harness`` (shared with revisions)."""
    if os.environ.get("HARNESS_CACHE"):
        return Path(os.environ["HARNESS_CACHE"])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "wire-harness"


def env_key(requirements: Sequence[str]) -> str:
    """The environment's name: what is installed, and by which interpreter."""
    material = {"requirements": sorted(" ".join(r.split()) for r in requirements),
                "python": sys.version, "base": os.path.realpath(sys.base_prefix)}
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:16]


def env_folder(requirements: Sequence[str]) -> Path:
    return cache_root() / "envs" / env_key(requirements)


def env_python(requirements: Sequence[str]) -> str:
    """The interpreter a provisioned environment will have (known before it exists)."""
    return str(env_folder(requirements) / "bin" / "python")


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        handle = open(folder.parent / f"{folder.name}.lock", "w")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise ConfigError("HARNESS_CACHE", str(cache_root()),
                          f"a folder the harness can write ({exc.strerror})") from None
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _ready(folder: Path) -> bool:
    return (folder / "ready.json").is_file() and (folder / "bin" / "python").exists()


def _pip(python: str) -> list[str]:
    """This interpreter's pip pointed at the environment; the environment's own when we have none."""
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip", "--python", python]
    return [python, "-m", "pip"]


def _install(spec: PipelineSpec, folder: Path, say: Callable[[str], None]) -> None:
    python = str(folder / "bin" / "python")
    try:
        venv.EnvBuilder(with_pip=importlib.util.find_spec("pip") is None, symlinks=True, clear=True).create(folder)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SubjectError(f"could not make a virtual environment in {folder}: {exc}") from None
    proc = supervise.popen(_pip_install(spec, python), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, cwd=spec.root or None)
    tail = _follow(proc, say)
    supervise.kill_group(proc.pid)  # at the deadline, or whatever pip left behind
    code = proc.wait()
    if code != 0:
        what = " ".join(spec.requirements)
        raise SubjectError(f"provisioning {what} failed (pip exit code {code}): " + "\n".join(tail)[-1500:])


def _pip_install(spec: PipelineSpec, python: str) -> list[str]:
    """pip's command line for the side's requirements: offline unless the side allows the index."""
    argv = [*_pip(python), "install", "--disable-pip-version-check", "--no-input"]
    if not spec.index:
        argv.append("--no-index")
    for link in spec.find_links:
        argv += ["--find-links", link]
    options = [r for r in spec.requirements if r.lstrip().startswith("-")]
    if options:  # the loader refuses these (released.requirement_problem); never let one reach pip
        raise SubjectError(f"not a requirement, an option: {options[0]!r}")
    return [*argv, "--", *spec.requirements]


def _follow(proc: subprocess.Popen[bytes], say: Callable[[str], None]) -> list[str]:
    """pip's output until it ends or INSTALL_TIMEOUT_S pass: its progress lines said as they come;
    its last lines returned (what a failure shows)."""
    assert proc.stdout is not None
    tail: list[str] = []
    deadline = time.monotonic() + INSTALL_TIMEOUT_S
    for raw in proc.stdout:
        line = raw.decode("utf-8", "replace")
        tail = [*tail[-30:], line.rstrip()]
        if line.lstrip().startswith(_PROGRESS):
            say(f"  {line.strip()[:150]}")
        if time.monotonic() > deadline:
            break
    return tail


def provision(spec: PipelineSpec, say: Callable[[str], None] | None = None) -> Path:
    """Make (or reuse) the environment of ``spec.requirements``; its folder. SubjectError when
    pip fails, naming the requirements and pip's last lines."""
    say = say or (lambda text: print(f"harness: {text}", file=sys.stderr, flush=True))
    folder = env_folder(spec.requirements)
    if _ready(folder):
        return folder
    with _locked(folder):
        if _ready(folder):  # another run made it while we waited for the lock
            return folder
        what = " ".join(spec.requirements)
        say(f"provisioning an environment for {what} ({folder.name}); later runs reuse it offline")
        started = time.monotonic()
        try:
            _install(spec, folder, say)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        record = {"requirements": list(spec.requirements), "python": sys.version,
                  "seconds": round(time.monotonic() - started, 1)}
        (folder / "ready.json").write_text(json.dumps(record, indent=1) + "\n")
        say(f"provisioned {what} in {record['seconds']:g} s")
    return folder
