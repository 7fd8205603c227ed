"""Benchmark: what the pin stage adds to a run. Case-file pins are evaluated in the harness as
each unit finishes, on its observations in hand; only a suite's Python pins start a pytest
child, forked before the build and let go once the observations are spooled.

    python bench/pins_overhead.py [--repeat 3] [--units 10000]

1. The bundled suite: `harness run` with pins against the same run with `--no-pins`, both
   measured in this invocation (wall and CPU time, children included), best of ``--repeat``
   runs each (the median of the back-to-back pairs' ratios beside it). Target: <= 1.3x. Then
   the same with pytest's PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, which the Python pins' pytest
   honours: what the installed pytest plugins cost it.
2. A generated suite of ``--units`` case x lane units, one pin each, on a pipeline that costs
   about 1 ms a call: the pin stage's own work (every ``PinStage`` call: per unit during the
   build, and its finish) against the build stage without it, and the run with pins against
   the run without (wall and CPU). Target: the pin stage is not slower than the build stage
   (before the seam: about 20x).
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness import _runner as runner  # noqa: E402
from harness._load import load_suite  # noqa: E402
from harness._pins.stage import PinStage  # noqa: E402
from harness._runner import RunOptions, run  # noqa: E402

PIPES = '''import hashlib


def _work(inp):
    data = repr(inp).encode()
    for _ in range(200):  # about 1 ms: a small real pipeline, not an empty call
        data = hashlib.sha256(data).digest()


def old(inp, lane):
    _work(inp)
    return {"model": "m", "tools": inp["tools"]}


def new(inp, lane):
    _work(inp)
    return {"model": "m", "tools": inp["tools"], "lane": lane["id"]}
'''


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@dataclass(frozen=True)
class Timed:
    wall: float
    cpu: float
    build: float  # the runner's stage timings (wall)
    pins: float
    build_cpu: float  # the build call without the pin stage's work in it, children included
    pins_cpu: float  # every PinStage call, children included
    pins_call: float  # wall of every PinStage call


_spent: dict[str, list[float]] = {}
_runs = itertools.count()


def _metered(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, adding the wall and CPU time (children included) of each call to ``_spent[name]``."""
    def call(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), _cpu()
        try:
            return fn(*args, **kwargs)
        finally:
            spent = _spent.setdefault(name, [0.0, 0.0])
            spent[0] += time.perf_counter() - wall
            spent[1] += _cpu() - cpu
    return call


runner.build = _metered("build", runner.build)
for _method in ("start", "unit", "finish"):  # the stage's work; unit() runs inside the build call
    setattr(PinStage, _method, _metered("pins", getattr(PinStage, _method)))


def timed(suite_root: Path, out: Path, pins: bool) -> Timed:
    suite = load_suite(suite_root)
    _spent.clear()
    wall, cpu = time.perf_counter(), _cpu()
    # a folder per run: two runs within one second would otherwise get the same run id
    result = run(suite, RunOptions(pins=pins, rejections=False, out=out / str(next(_runs))))
    timings = result.report["timings"]
    pins_wall, pins_cpu = _spent.get("pins", [0.0, 0.0])
    # the build stage alone: the build call less the pin stage's per-unit work inside it
    return Timed(time.perf_counter() - wall, _cpu() - cpu, timings["build_s"], timings["pins_s"],
                 _spent["build"][1] - pins_cpu if pins else _spent["build"][1], pins_cpu, pins_wall)


def generated(folder: Path, units: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pipes.py").write_text(PIPES)
    (folder / "suite.yaml").write_text("version: 1\nname: generated\nsubjects:\n  gen:\n    old: pipes:old\n"
                                       "    new: pipes:new\n    wires: [w]\n")
    (folder / "lanes.yaml").write_text("version: 1\nlanes:\n  - {id: a, wire: w, provider: p}\n"
                                       "  - {id: b, wire: w, provider: q}\n")
    lines = ["version: 1", "subject: gen", "cases:"]
    for i in range(units // 2):
        lines += [f"  - id: c{i:05d}", f"    tools: [{{name: t{i}, input_schema: {{type: object}}}}]",
                  "    expect: {'*': {diverges: {why: the new side names its lane, paths: [lane]}}}",
                  "    pins:", "      - {name: names_its_lane, kind: schema, select: lane, must_match: {type: string}}"]
    (folder / "gen.cases.yaml").write_text("\n".join(lines) + "\n")
    return folder


def _pairs(suite_root: Path, out: Path, repeat: int) -> list[tuple[Timed, Timed]]:
    """(without pins, with pins), measured back to back ``repeat`` times: the baseline is
    always this machine's, now."""
    return [(timed(suite_root, out, pins=False), timed(suite_root, out, pins=True)) for _ in range(repeat)]


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _no_autoload(suite_root: Path, out: Path) -> Timed:
    """A run with pins whose pytest loads no installed plugin (pytest's own switch, read by the
    Python pins' pytest when it starts)."""
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        return timed(suite_root, out, pins=True)
    finally:
        del os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]


def _ratios(pairs: list[tuple[Timed, Timed]]) -> tuple[float, float, float, float]:
    """(wall, cpu) as best of each side's runs, then (wall, cpu) as the median of the pairs'
    ratios. Other work on a shared machine only ever slows a run down, so the best of several
    runs is the steadier figure of what each costs (bench/differential.py judges the same way);
    the median of the back-to-back pairs is printed beside it."""
    best_wall = min(w.wall for _, w in pairs) / min(wo.wall for wo, _ in pairs)
    best_cpu = min(w.cpu for _, w in pairs) / min(wo.cpu for wo, _ in pairs)
    return (best_wall, best_cpu, _median([w.wall / wo.wall for wo, w in pairs]),
            _median([w.cpu / wo.cpu for wo, w in pairs]))


def bundled(out: Path, repeat: int) -> None:
    pairs = _pairs(REPO / "cases", out, repeat)
    wall, cpu, pair_wall, pair_cpu = _ratios(pairs)
    print(f"bundled suite (best of {repeat}): without pins {min(p[0].wall for p in pairs):.2f} s wall "
          f"{min(p[0].cpu for p in pairs):.2f} s cpu; with pins {min(p[1].wall for p in pairs):.2f} s "
          f"wall {min(p[1].cpu for p in pairs):.2f} s cpu")
    print(f"  with / without: wall {wall:.2f}x, cpu {cpu:.2f}x   target <= 1.3x: "
          f"{'met' if max(wall, cpu) <= 1.3 else 'met on wall only' if wall <= 1.3 else 'not met'}"
          f"   (median of the {repeat} pairs' ratios: wall {pair_wall:.2f}x, cpu {pair_cpu:.2f}x)")
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return
    bare = [(timed(REPO / "cases", out, pins=False), _no_autoload(REPO / "cases", out)) for _ in range(repeat)]
    bare_wall, bare_cpu, _, _ = _ratios(bare)
    print(f"  the same with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 (installed plugins left out of the pins' pytest): "
          f"wall {bare_wall:.2f}x, cpu {bare_cpu:.2f}x")


def scaled(out: Path, folder: Path, units: int) -> None:
    (without, with_pins), = _pairs(generated(folder, units), out, 1)
    wall = with_pins.pins_call / without.build
    cpu = with_pins.pins_cpu / with_pins.build_cpu
    print(f"{units} units, one pin each, on {os.cpu_count()} core(s): build stage {without.build:.1f} s wall "
          f"(the run without pins) {with_pins.build_cpu:.1f} s cpu, pin stage {with_pins.pins_call:.1f} s wall "
          f"{with_pins.pins_cpu:.1f} s cpu")
    print(f"  pins / build: wall {wall:.2f}x, cpu {cpu:.2f}x   target: the build stage's rate (<= 1x): "
          f"{'met' if max(wall, cpu) <= 1 else 'met on cpu only' if cpu <= 1 else 'not met'}")
    print(f"  (the runner's pin stage timing, after the build: {with_pins.pins:.1f} s; {without.pins:.1f} s in the "
          "run without pins)")
    print(f"  whole run without pins {without.wall:.1f} s wall {without.cpu:.1f} s cpu; with pins "
          f"{with_pins.wall:.1f} s wall {with_pins.cpu:.1f} s cpu: with / without = wall "
          f"{with_pins.wall / without.wall:.2f}x, cpu {with_pins.cpu / without.cpu:.2f}x")


def _plugins() -> str:
    """The pytest plugins an installed distribution registers (``pytest11``): each is imported
    by the Python pins' pytest unless PYTEST_DISABLE_PLUGIN_AUTOLOAD is set, and costs CPU."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return "none (PYTEST_DISABLE_PLUGIN_AUTOLOAD is set)"
    return ", ".join(sorted(e.name for e in entry_points(group="pytest11"))) or "none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--units", type=int, default=10_000)
    args = parser.parse_args()
    print(f"python {sys.executable}; pytest plugins loaded for Python pins: {_plugins()}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        bundled(out, args.repeat)
        scaled(out, Path(tmp) / "gen", args.units)
    return 0


if __name__ == "__main__":
    sys.exit(main())
