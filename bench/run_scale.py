"""Benchmark: ``harness run`` end to end against the bare pipelines, and how it scales with workers.

    python bench/run_scale.py [--units 10000 100000] [--lanes 50] [--workers 1 2] [--spin-us 0]

The suite is bench/memory_scale.py's (one trivial in-process pipeline on both sides, ``--lanes``
lanes, one small tool per case; rejections on, no pins), each case's tool made distinct so every
unit's body is a new one. Measured in the same run:

- the bare pipelines: old and new called on every unit in this process, each output encoded as the
  harness encodes a body (``canonical_bytes``): the work a run cannot avoid;
- ``harness run SUITE --no-pins -q`` in a fresh interpreter per worker count, its CPU split into the
  harness process's own (planning, evidence, rules, report) and its build workers'.

Printed per size: CPU per unit of each, the run's CPU against the bare pipelines (goal <= 3x), and
the wall time with 2 workers against 1 (goal <= 0.6x). Wall times move with the machine's load
(printed); CPU seconds are the steadier figure. ``--spin-us N`` makes each pipeline call spend N
CPU microseconds, for a pipeline that costs something next to the harness's own per-unit work.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_scale import suite  # noqa: E402

from harness._common.canonical import canonical_bytes  # noqa: E402

__all__ = ["bare", "harnessed", "main"]

# Run in a fresh interpreter: the harness's own console entry, then its own and its children's
# CPU (the build workers are its children, reaped before it returns).
_WRAPPER = """
import json, resource, sys, time
from harness._cli.main import main
out = sys.argv.pop(1)
start = time.perf_counter()
try:
    main()
except SystemExit as exc:
    code = exc.code
own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    json.dump({"code": code, "wall": time.perf_counter() - start, "own": own.ru_utime + own.ru_stime,
               "workers": kids.ru_utime + kids.ru_stime}, f)
"""


def _distinct_tools(folder: Path) -> None:
    """Each case's tool a description of its own, so every unit's body is a new one to scrub,
    digest and save (bench/memory_scale.py's cases share one tool: 50 bodies in all)."""
    cases = folder / "s.cases.yaml"
    lines = cases.read_text().splitlines()
    cases.write_text("\n".join(line.replace("description: The weather", f"description: The weather {i}")
                               for i, line in enumerate(lines)) + "\n")


def _busy_pipes(folder: Path, spin_us: float) -> None:
    """The suite's pipeline made to spend ``spin_us`` of CPU a call (measured on its own thread's
    CPU clock, so the same under any load): a pipeline that costs something, against which the
    harness's own per-unit cost is a smaller share."""
    (folder / "pipes.py").write_text(
        "import time\n"
        "def trivial(inp, lane):\n"
        f"    end = time.thread_time() + {spin_us / 1e6!r}\n"
        "    while time.thread_time() < end:\n"
        "        pass\n"
        "    return {'model': lane['id'], 'tools': inp['tools']}\n")


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def bare(folder: Path) -> float:
    """CPU seconds of calling old and new on every unit of the suite, bodies encoded."""
    # the generated suite's pipelines (bench/memory_scale.py), by path: "pipes" is a stdlib name too
    spec = importlib.util.spec_from_file_location("run_scale_pipes", folder / "pipes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import yaml

    lanes = [dict(lane) for lane in yaml.safe_load((folder / "lanes.yaml").read_text())["lanes"]]
    cases = yaml.safe_load((folder / "s.cases.yaml").read_text())["cases"]
    inputs = [{"tools": case["tools"]} for case in cases]
    fn = module.trivial
    cpu = _cpu()
    for given in inputs:
        for lane in lanes:
            canonical_bytes(fn(given, dict(lane)))
            canonical_bytes(fn(given, dict(lane)))
    return _cpu() - cpu


def harnessed(folder: Path, workers: int, out: Path) -> dict[str, float]:
    """One ``harness run`` of the suite in a fresh interpreter: wall, its own CPU, its workers' CPU."""
    figures = out / f"figures-{workers}.json"
    done = subprocess.run([sys.executable, "-c", _WRAPPER, str(figures), "run", str(folder), "--workers",
                           str(workers), "--no-pins", "-q", "--out", str(out / f"w{workers}")], check=False,
                          cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    data: dict[str, float] = json.loads(figures.read_text()) if figures.is_file() else {"code": done.returncode}
    if data["code"] not in (0, None):
        raise SystemExit(f"harness run {folder} exited {data['code']}: {done.stderr[-2000:]}")
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--lanes", type=int, default=50)
    parser.add_argument("--workers", type=int, nargs=2, default=[1, 2], metavar=("FEW", "MORE"))
    parser.add_argument("--spin-us", type=float, default=0.0,
                        help="CPU microseconds each pipeline call spends (default 0: a trivial pipeline)")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}; load at start {os.getloadavg()[0]:.1f}; {args.lanes} lanes; pins off; "
          f"pipeline {'trivial' if not args.spin_us else f'spending {args.spin_us:g} us a call'}")
    with tempfile.TemporaryDirectory(prefix="run-scale-") as tmp:
        for units in args.units:
            folder = suite(Path(tmp) / f"s{units}", units, args.lanes)
            _distinct_tools(folder)
            if args.spin_us:
                _busy_pipes(folder, args.spin_us)
            out = Path(tmp) / f"out{units}"
            out.mkdir()
            base = bare(folder)
            runs = {w: harnessed(folder, w, out) for w in args.workers}
            print(f"{units:,} units: bare pipelines {base:.2f} s CPU ({base / units * 1e6:.1f} us a unit)")
            for w, r in runs.items():
                cpu = r["own"] + r["workers"]
                print(f"  harness run, {w} worker(s): wall {r['wall']:.2f} s, CPU {cpu:.2f} s "
                      f"({cpu / units * 1e6:.0f} us a unit: harness process {r['own']:.2f} s, workers "
                      f"{r['workers']:.2f} s); CPU {cpu / base:.1f}x the bare pipelines (goal <= 3x)")
            few, more = (runs[w] for w in args.workers)
            print(f"  wall with {args.workers[1]} workers / {args.workers[0]}: {more['wall'] / few['wall']:.2f}x "
                  f"(goal <= 0.6x); load now {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
