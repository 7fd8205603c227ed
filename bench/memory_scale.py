"""Benchmark: peak memory of ``harness run`` against the number of case x lane units.

    python bench/memory_scale.py [--units 10000 100000] [--lanes 50] [--pins]

Two generated suites in a temporary folder, the same shape at two sizes: one trivial in-process
pipeline (``{"model": lane id, "tools": input tools}``, old and new alike), ``--lanes`` lanes and
as many cases as make the unit counts, one small tool per case, no pins (``--pins`` runs the pin
stage too: it is a child pytest with one ``expect`` item per unit). Each suite runs through
``harness run`` in a subprocess (rejections on, two workers); printed per size: wall and CPU
seconds, the peak resident memory of the harness process itself (VmHWM, polled from /proc) and of
the largest process of its tree (``ru_maxrss`` of the waited-for children), report.json's size,
and the ratio of the large run's peaks to the small run's. Target: ratio <= 1.5.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["Measured", "main", "measure", "suite"]

PIPES = "def trivial(inp, lane):\n    return {'model': lane['id'], 'tools': inp['tools']}\n"
TOOL = "{name: get_weather, description: The weather, input_schema: {type: object, properties: {city: {type: string}}}}"


def suite(folder: Path, units: int, lanes: int) -> Path:
    """A suite of ``units`` case x lane runs: ``lanes`` lanes, units // lanes cases."""
    folder.mkdir(parents=True)
    (folder / "pipes.py").write_text(PIPES)
    (folder / "lanes.yaml").write_text(
        "version: 1\nlanes:\n" + "".join(f"  - {{id: l{i}, wire: w, provider: p{i}}}\n" for i in range(lanes)))
    (folder / "suite.yaml").write_text(
        f"version: 1\nname: {folder.name}\ntimeout_s: 10\nsubjects:\n  s:\n"
        "    old: pipes:trivial\n    new: pipes:trivial\n    wires: [w]\n")
    body = "".join(f"  - {{id: c{i}, tools: [{TOOL}]}}\n" for i in range(units // lanes))
    (folder / "s.cases.yaml").write_text(f"version: 1\nsubject: s\ncases:\n{body}")
    return folder


class Measured:
    """One run's figures."""

    def __init__(self, wall: float, cpu: float, own_kb: int, tree_kb: int, report_bytes: int) -> None:
        self.wall, self.cpu, self.own_kb, self.tree_kb, self.report_bytes = wall, cpu, own_kb, tree_kb, report_bytes


def _hwm_kb(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    line = next((x for x in text.splitlines() if x.startswith("VmHWM:")), None)
    return int(line.split()[1]) if line else None


def _poll(proc: subprocess.Popen[bytes], peak: list[int]) -> None:
    """The harness process's own high-water mark, read until it exits (VmHWM only grows)."""
    while proc.poll() is None:
        got = _hwm_kb(proc.pid)
        if got is not None:
            peak[0] = max(peak[0], got)
        time.sleep(0.05)


def measure(folder: Path, pins: bool, extra: list[str] | None = None) -> Measured:
    """Run ``harness run`` on ``folder`` in a fresh process (its own RUSAGE_CHILDREN baseline)."""
    code = (
        "import resource, subprocess, sys, threading, time, json\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from memory_scale import _poll\n"
        "cmd = [sys.executable, '-m', 'harness', 'run', sys.argv[2], '--workers', '2', '--out', sys.argv[3]]\n"
        "cmd += sys.argv[5:]\n"
        "cmd += [] if sys.argv[4] == 'pins' else ['--no-pins']\n"
        "start = time.perf_counter()\n"
        "proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
        "peak = [0]\n"
        "t = threading.Thread(target=_poll, args=(proc, peak)); t.start()\n"
        "err = proc.stderr.read(); proc.wait(); t.join()\n"
        "wall = time.perf_counter() - start\n"
        "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'code': proc.returncode, 'wall': wall, 'cpu': use.ru_utime + use.ru_stime,\n"
        "                  'own': peak[0], 'tree': use.ru_maxrss, 'err': err.decode()[-800:]}))\n"
    )
    out = folder / "out"
    got = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(folder), str(out),
                          "pins" if pins else "no-pins", *(extra or [])], capture_output=True, text=True, check=True)
    data = json.loads(got.stdout)
    if data["code"] not in (0, 1, 3):
        raise SystemExit(f"harness run {folder} exited {data['code']}: {data['err']}")
    report = out / "latest" / "report.json"
    return Measured(data["wall"], data["cpu"], data["own"], data["tree"], report.stat().st_size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, nargs=2, default=(10_000, 100_000), metavar=("SMALL", "LARGE"))
    parser.add_argument("--lanes", type=int, default=50)
    parser.add_argument("--pins", action="store_true", help="run the pin stage too (a child pytest)")
    parser.add_argument("--format", default="text", choices=("text", "json", "markdown"),
                        help="what harness run prints (text: the terminal tables)")
    args = parser.parse_args()
    runs: dict[int, Measured] = {}
    with tempfile.TemporaryDirectory(prefix="memory-scale-") as tmp:
        for units in args.units:
            runs[units] = measure(suite(Path(tmp) / f"s{units}", units, args.lanes), args.pins,
                                  ["--format", args.format])
    pins = "on" if args.pins else "off"
    print(f"cores: {os.cpu_count()}; load {os.getloadavg()[0]:.1f}; {args.lanes} lanes; pins {pins}; "
          f"--format {args.format}")
    for units, m in runs.items():
        print(f"  {units:>8,} units: wall {m.wall:7.1f} s  CPU {m.cpu:7.1f} s  harness peak {m.own_kb / 1024:7.1f} MB  "
              f"largest process {m.tree_kb / 1024:7.1f} MB  report.json {m.report_bytes / 1e6:7.1f} MB")
    small, large = (runs[u] for u in args.units)
    print(f"ratio {args.units[1]:,} / {args.units[0]:,} units: harness peak {large.own_kb / small.own_kb:.2f}x  "
          f"largest process {large.tree_kb / small.tree_kb:.2f}x  (target <= 1.5)")


if __name__ == "__main__":
    main()
