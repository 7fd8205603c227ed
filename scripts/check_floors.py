"""Check the dependency floors pyproject.toml declares by installing them (run by hand; it uses
the package index, so no test runs it).

    python scripts/check_floors.py                 # each FLOORS entry, and the version below it
    python scripts/check_floors.py deepdiff==8.0.0 # one candidate

For each candidate it makes one scratch virtualenv with the project and its test extra, installs
the candidate over it, and reports whether `harness --help` works and the tests that exercise
that dependency pass. Measured results are kept in docs/packaging.md.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["FLOORS", "main"]

REPO = Path(__file__).resolve().parent.parent
# dependency -> (the floor, the release below it, the tests that exercise it)
FLOORS = {
    "deepdiff": ("8.0.1", "8.0.0", ["tests/unit/report", "tests/e2e/test_cli_run.py"]),
    "vcrpy": ("8.2.1", "8.1.1", ["tests/unit/reject", "tests/e2e/test_replay.py"]),
    "pytest": ("9.0.0", "8.4.2", ["tests/unit/mutate/test_pytest_canary.py", "tests/e2e/test_mutate_cli.py"]),
}


def _run(cmd: list[str], cwd: Path = REPO) -> tuple[int, str]:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=1800)
    lines = (done.stdout + done.stderr).strip().splitlines()
    return done.returncode, lines[-1] if lines else ""


def _try(venv: Path, requirement: str, tests: list[str]) -> str:
    py = str(venv / "bin" / "python")
    code, said = _run([py, "-m", "pip", "install", "-q", requirement])
    if code:
        return f"{requirement}: does not install ({said})"
    help_code, help_said = _run([str(venv / "bin" / "harness"), "--help"], cwd=Path(tempfile.gettempdir()))
    _code, tested = _run([py, "-m", "pytest", "-q", "-p", "no:randomly", *tests])
    return f"{requirement}: --help {'ok' if help_code == 0 else 'FAILS: ' + help_said} | tests: {tested}"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{REPO}[test]"], check=True)
        if args:
            name = args[0].split("=")[0].rstrip("<>!~")
            print(_try(venv, args[0], FLOORS.get(name, ("", "", ["tests/unit"]))[2]))
            return 0
        for name, (floor, below, tests) in FLOORS.items():
            for version in (below, floor):
                print(_try(venv, f"{name}=={version}", tests), flush=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{REPO}[test]"], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
