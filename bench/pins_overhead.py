"""Benchmark: what the pin stage adds to a run, now that pins read the build stage's saved
observations instead of calling every pipeline again.

    python bench/pins_overhead.py [--repeat 3] [--units 10000]

1. The bundled suite: `harness run` with pins against the same run with `--no-pins`
   (wall and CPU time, children included). Target: ratio <= 1.3.
2. A generated suite of ``--units`` case x lane units, one pin each, on a pipeline that costs
   about 1 ms a call: the pin stage's time against the build stage's time in the same run
   (before the seam the pin stage re-ran every pipeline, one forked call each: about 20x).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness.load import load_suite  # noqa: E402
from harness.runner import RunOptions, run  # noqa: E402

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


def timed(suite_root: Path, out: Path, pins: bool) -> tuple[float, float, dict[str, float]]:
    suite = load_suite(suite_root)
    wall, cpu = time.perf_counter(), _cpu()
    result = run(suite, RunOptions(pins=pins, rejections=False, out=out))
    timings = result.report["timings"]
    return time.perf_counter() - wall, _cpu() - cpu, {"build": timings["build_s"], "pins": timings["pins_s"]}


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--units", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        bundled = REPO / "cases"
        rows = []
        for _ in range(args.repeat):
            without = timed(bundled, out, pins=False)
            with_pins = timed(bundled, out, pins=True)
            rows.append((with_pins[0] / without[0], with_pins[1] / without[1]))
        print(f"bundled suite, run with pins / run without (median of {args.repeat}): "
              f"wall {statistics.median(r[0] for r in rows):.2f}x, cpu {statistics.median(r[1] for r in rows):.2f}x"
              "  (target <= 1.3x)")
        gen = generated(Path(tmp) / "gen", args.units)
        wall, cpu, stages = timed(gen, out, pins=True)
        print(f"{args.units} units, one pin each, on {os.cpu_count()} core(s): build stage {stages['build']:.1f} s, "
              f"pin stage {stages['pins']:.1f} s: pins / build = {stages['pins'] / stages['build']:.2f}x "
              f"(whole run {wall:.1f} s wall, {cpu:.1f} s cpu)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
