"""Benchmark: what the JSON-lines protocol costs per unit, against the same pipeline in process.

    python bench/protocol_overhead.py [--units 400 2000] [--calls 5000]

One trivial pipeline (``{"model": lane id, "tools": input tools}``), reached two ways:
``module:function`` in the harness's process, and the same callable served by
``harness/adapter/serve.py`` in another interpreter (``python: python3``), so every call is a
JSON line out and a JSON line back. Two measures, each printed as command / in-process:

- per unit: ``harness run --no-pins --no-rejections`` on suites of two sizes; the marginal cost
  of a unit (the difference between the sizes, divided by the extra units) in wall time and in
  CPU time (the harness, its workers and the pipeline processes). Target: ratio <= 2.
- per call: ``Pipeline.call`` alone, in this process, without the rest of the build stage.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness._model import PipelineSpec  # noqa: E402
from harness._pipeline.command import CommandPipeline  # noqa: E402
from harness._pipeline.inprocess import InProcessPipeline  # noqa: E402

PIPES = "def trivial(inp, lane):\n    return {'model': lane['id'], 'tools': inp['tools']}\n"
LANES = "version: 1\nlanes:\n" + "".join(f"  - {{id: l{i}, wire: w, provider: p{i}}}\n" for i in range(4))
TOOL = "{name: get_weather, description: The weather, input_schema: {type: object, properties: {city: {type: string}}}}"


def suite(folder: Path, cases: int, side: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "pipes.py").write_text(PIPES)
    (folder / "lanes.yaml").write_text(LANES)
    (folder / "suite.yaml").write_text(
        f"version: 1\nname: {folder.name}\ntimeout_s: 10\nsubjects:\n  s:\n"
        f"    old: {side}\n    new: {side}\n    wires: [w]\n")
    body = "".join(f"  - {{id: c{i}, tools: [{TOOL}], expect: {{'*': same}}}}\n" for i in range(cases))
    (folder / "s.cases.yaml").write_text(f"version: 1\nsubject: s\ncases:\n{body}")
    return folder


def timed_run(folder: Path) -> tuple[float, float]:
    """Wall and CPU seconds (this run's process tree) of one harness run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    got = subprocess.run([sys.executable, "-m", "harness", "run", str(folder), "--no-pins", "--no-rejections",
                          "--workers", "2", "--out", str(folder / "out")], capture_output=True, text=True,
                         check=False, cwd=folder)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if got.returncode != 0:
        raise SystemExit(f"harness run {folder} exited {got.returncode}: {got.stdout[-800:]}{got.stderr[-800:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def per_unit(tmp: Path, sizes: tuple[int, int]) -> dict[str, tuple[float, float]]:
    """Marginal (wall, cpu) seconds per unit for each way of reaching the pipeline."""
    sides = {"in-process": "pipes:trivial", "command": "{python: " + sys.executable + ", call: 'pipes:trivial'}"}
    out = {}
    for name, side in sides.items():
        small = timed_run(suite(tmp / f"{name}-small", sizes[0], side))
        large = timed_run(suite(tmp / f"{name}-large", sizes[1], side))
        units = (sizes[1] - sizes[0]) * 4
        out[name] = ((large[0] - small[0]) / units, (large[1] - small[1]) / units)
    return out


def per_call(tmp: Path, calls: int) -> dict[str, float]:
    """Seconds per ``Pipeline.call`` (wall), each way, after a warm-up."""
    folder = tmp / "calls"
    folder.mkdir()
    (folder / "pipes.py").write_text(PIPES)
    sys.path.insert(0, str(folder))
    pipes = {
        "in-process": InProcessPipeline(PipelineSpec(kind="python", call="pipes:trivial", root=str(folder))),
        "command": CommandPipeline(PipelineSpec(kind="python", call="pipes:trivial", python=sys.executable,
                                                root=str(folder), cwd=str(folder))),
    }
    inp = {"tools": [{"name": "get_weather", "description": "The weather",
                      "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}]}
    lane = {"id": "l0", "wire": "w", "provider": "p"}
    out = {}
    for name, pipe in pipes.items():
        for _ in range(50):
            pipe.call(inp, lane, case_id="c", lane_id="l0", side="new", timeout=10)
        start = time.perf_counter()
        for _ in range(calls):
            obs = pipe.call(inp, lane, case_id="c", lane_id="l0", side="new", timeout=10)
        out[name] = (time.perf_counter() - start) / calls
        assert obs.ok, obs.error
        pipe.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", type=int, nargs=2, default=(400, 2000), metavar=("SMALL", "LARGE"),
                        help="cases in the two suites (each runs on 4 lanes)")
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        calls = per_call(Path(tmp), args.calls)
        units = per_unit(Path(tmp), tuple(args.units))
    print(f"cores: {os.cpu_count()}; per call ({args.calls} calls, Pipeline.call only):")
    print(f"  in-process {calls['in-process'] * 1e6:8.1f} us   command {calls['command'] * 1e6:8.1f} us   "
          f"ratio {calls['command'] / calls['in-process']:.2f}x")
    print(f"per unit (harness run, marginal over {(args.units[1] - args.units[0]) * 4} extra units, old+new each):")
    for i, what in enumerate(("wall", "CPU")):
        a, b = units["in-process"][i], units["command"][i]
        print(f"  {what:4}  in-process {a * 1e6:8.1f} us   command {b * 1e6:8.1f} us   ratio {b / a:.2f}x "
              f"(target <= 2)")


if __name__ == "__main__":
    main()
