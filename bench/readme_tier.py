"""Benchmark: what the README's test command costs, and where it goes.

    python bench/readme_tier.py [--workers N] [--top 25] [--json out.json] [-- PYTEST_ARGS...]

Runs the README's second command (``python -m pytest -n auto``) in this checkout as ``.ci/run``
does (bytecode written), with a plugin (``bench/_tier_cpu.py``) timing each test's CPU seconds,
its process's and its children's. Prints the run's CPU seconds (user + system of pytest and
every process it waited for), its wall time and the load average around it, then where the CPU
went: each tier folder, what no test accounts for (the workers' start and collection, the
controller), and the costliest tests.

Two baselines are measured in the same invocation, on the same machine and load: a fixed
pure-Python workload (``calibration``: CPU seconds are only comparable across machines as a
multiple of it), and one pytest process collecting the same tree (what each worker pays before
its first test). Target (issue 25): at most 90 CPU seconds on a 2-core machine, at most 3
minutes of wall time at load 4. CPU seconds grow with the load (the cores' caches are shared):
compare runs at about the same load.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_CPU_S = 90.0


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def _env(rows: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as .ci/run
    if rows is not None:
        env["TIER_CPU_OUT"] = rows
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "bench"), env.get("PYTHONPATH")]))
    return env


def _measured(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """CPU seconds (children waited for), wall seconds and the last line a command printed."""
    cpu, wall = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    lines = (done.stdout.strip() or done.stderr.strip() or "(no output)").splitlines()
    return _children_cpu() - cpu, time.perf_counter() - wall, lines[-1]


def _calibrate() -> float:
    """A fixed pure-Python workload in a fresh interpreter: the machine's speed, this minute."""
    code = ("import hashlib, json\nd = b'x'\nfor i in range(300000):\n"
            "    d = hashlib.sha256(d).digest()\n    json.loads(json.dumps({'i': i, 'd': d.hex()}))\n")
    cpu, _, _ = _measured([sys.executable, "-c", code], _env(None))
    return cpu


def _rows(prefix: str) -> list[tuple[float, str]]:
    out: list[tuple[float, str]] = []
    for path in Path(prefix).parent.glob(Path(prefix).name + ".*"):
        out.extend((float(c), str(n)) for c, n in map(json.loads, path.read_text().splitlines()))
    return out


def _folder(nodeid: str) -> str:
    parts = nodeid.split("::")[0].split("/")
    return "/".join(parts[:2]) if parts[0] == "tests" else parts[0]


def _report(total: float, wall: float, loads: tuple[float, float], rows: list[tuple[float, str]],
            collect: float, calibration: float, top: int) -> dict[str, object]:
    per_folder: dict[str, float] = collections.defaultdict(float)
    counts: collections.Counter[str] = collections.Counter()
    for cpu, nodeid in rows:
        per_folder[_folder(nodeid)] += cpu
        counts[_folder(nodeid)] += 1
    in_tests = sum(per_folder.values())
    print(f"CPU s {total:.1f} (target <= {TARGET_CPU_S:.0f}: {'met' if total <= TARGET_CPU_S else 'not met'}), "
          f"wall {wall:.1f} s, load {loads[0]:.1f} -> {loads[1]:.1f}")
    print(f"  = {total / calibration:.1f}x the calibration workload ({calibration:.2f} CPU s)"
          f" = {total / collect:.1f}x one pytest process's start and collection ({collect:.2f} CPU s)")
    for folder, cpu in sorted(per_folder.items(), key=lambda kv: -kv[1]):
        print(f"  {folder:28} {counts[folder]:5d} tests {cpu:7.1f} CPU s")
    print(f"  {'outside any test':28} {'':11} {total - in_tests:7.1f} CPU s (workers' start, collection, controller)")
    print(f"the {top} costliest tests:")
    for cpu, nodeid in sorted(rows, reverse=True)[:top]:
        print(f"  {cpu:6.2f} {nodeid}")
    return {"cpu_s": total, "wall_s": wall, "load": loads, "calibration_cpu_s": calibration,
            "collect_cpu_s": collect, "tests": len(rows), "folders": dict(per_folder),
            "outside_tests_cpu_s": total - in_tests, "top": sorted(rows, reverse=True)[:top]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=None, help="xdist workers (default: what -n auto starts)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("pytest_args", nargs="*", help="after --: more pytest arguments")
    args = ap.parse_args()
    calibration = _calibrate()
    collect, _, _ = _measured([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n0"], _env(None))
    with tempfile.TemporaryDirectory() as tmp:
        prefix = str(Path(tmp) / "rows")
        before = os.getloadavg()[0]
        workers = "auto" if args.workers is None else str(args.workers)
        total, wall, last = _measured([sys.executable, "-m", "pytest", "-n", workers, "-q", "-p", "_tier_cpu",
                                       *args.pytest_args], _env(prefix))
        print(f"pytest: {last}")
        figures = _report(total, wall, (before, os.getloadavg()[0]), _rows(prefix), collect, calibration, args.top)
    figures["pytest"] = last
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    figures["commit"] = head.stdout.strip() or None
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
