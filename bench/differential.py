"""Benchmark: the differential stage (build + compare, isolated workers) over real tool schemas,
as a ratio to calling the two pipelines bare, in this process, on the same inputs.

    python bench/differential.py [--repeat 3] [--workers N]

Inputs: every tool of ../shared/corpora/mcp/*.tools.json and codewhale/, one case per tool,
on every lane of the bundled suite's seed 001 subject. Printed in wall and CPU time (this
process and its workers), with every core and with one worker, since a pool on every core
against a one-process baseline flatters the wall ratio. Targets: wall <= 1.3x; CPU <= 1.15x
with one worker.
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "corpora"
sys.path.insert(0, str(REPO))

from harness._common.canonical import canonical_bytes  # noqa: E402
from harness._differential import build  # noqa: E402
from harness._errors import Place  # noqa: E402
from harness._load import load_suite  # noqa: E402
from harness._model import Case, Expectation, Suite  # noqa: E402
from harness._plugins import load_callable  # noqa: E402
from harness._sources import tools_from_listing  # noqa: E402


def corpus_tools() -> list[dict]:
    tools = []
    for path in sorted([*SHARED.glob("mcp/*.json"), *SHARED.glob("codewhale/*.json")]):
        tools += tools_from_listing(json.loads(path.read_text()), Place(str(path)))
    return tools


def corpus_suite(bundled: Suite, tools: list[dict]) -> Suite:
    subject = bundled.subjects["anthropic_messages"]
    lanes = tuple(lid for lid, lane in bundled.lanes.items() if lane.wire in subject.wires)
    why = Expectation("diverges", why="corpus run: no expectation declared")
    cases = tuple(
        Case(id=f"corpus-{i:04d}", subject=subject.name, file="bench", line=None, title=t["name"],
             input={"tools": [t]}, lanes=lanes, expect={"*": why}, checks=frozenset(), pins=())
        for i, t in enumerate(tools)
    )
    return Suite(root=bundled.root, name="corpus", lanes=bundled.lanes, subjects={subject.name: subject},
                 cases=cases, settings=bundled.settings)


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the build workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _kernel() -> tuple[float, int]:
    """System seconds and minor page faults of this process and its finished children."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_stime + kids.ru_stime, own.ru_minflt + kids.ru_minflt


def cow_fault_us(megabytes: int = 64) -> float:
    """What one copy-on-write page fault costs on this machine, in CPU microseconds: a forked
    child writes one byte into every page of a buffer it shares with this process. Each build
    worker is such a child, and so is this process for the pages it writes while one lives."""
    buf = bytearray(megabytes << 20)
    pages = len(buf) // mmap.PAGESIZE
    for i in range(0, len(buf), mmap.PAGESIZE):
        buf[i] = 1
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: time its own writes, answer, leave
        before = resource.getrusage(resource.RUSAGE_SELF)
        for i in range(0, len(buf), mmap.PAGESIZE):
            buf[i] = 2
        after = resource.getrusage(resource.RUSAGE_SELF)
        spent = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        os.write(write_fd, str(spent / pages * 1e6).encode())
        os._exit(0)
    os.close(write_fd)
    answer = os.read(read_fd, 64)
    os.close(read_fd)
    os.waitpid(pid, 0)
    return float(answer)


def bare(suite: Suite) -> tuple[float, float]:
    subject = next(iter(suite.subjects.values()))
    old, new = load_callable(subject.old), load_callable(subject.new)
    start, cpu = time.perf_counter(), _cpu()
    for case in suite.cases:
        for lane_id in case.lanes:
            lane = suite.lanes[lane_id].as_dict()
            canonical_bytes(old(case.input, lane))
            canonical_bytes(new(case.input, lane))
    return time.perf_counter() - start, _cpu() - cpu


def _own_cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def harnessed(suite: Suite, workers: int | None, kernel: list[tuple[float, int]] | None = None,
              split: list[tuple[float, float, float]] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one build; ``kernel`` gets its system seconds and minor faults,
    ``split`` its CPU in this process, its CPU in the workers, and the time spent inside the
    pipeline calls themselves (their observations' durations, the encoding of the body included)."""
    start, cpu, own, (sys_s, faults) = time.perf_counter(), _cpu(), _own_cpu(), _kernel()
    results = build(suite, workers=workers)
    elapsed = time.perf_counter() - start, _cpu() - cpu
    if kernel is not None:
        now_s, now_faults = _kernel()
        kernel.append((now_s - sys_s, now_faults - faults))
    if split is not None:
        parent = _own_cpu() - own
        calls = sum(r.old.duration_s + r.new.duration_s for r in results if r.old and r.new)
        split.append((parent, elapsed[1] - parent, calls))
    assert all(r.verdict is not None for r in results)
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"skipped: the corpora folder {SHARED} is absent")
        return 0
    suite = corpus_suite(load_suite(REPO / "cases"), corpus_tools())
    units = sum(len(c.lanes) for c in suite.cases)
    bare_s: list[tuple[float, float]] = []
    many: list[tuple[float, float]] = []
    one: list[tuple[float, float]] = []
    kernel: list[tuple[float, int]] = []
    split: list[tuple[float, float, float]] = []
    for _ in range(args.repeat):  # interleaved, so drift in machine load hits all alike
        bare_s.append(bare(suite))
        many.append(harnessed(suite, args.workers))
        one.append(harnessed(suite, 1, kernel, split))
    print(f"{len(suite.cases)} tools x lanes = {units} units, {2 * units} pipeline calls; best of {args.repeat}")
    b_wall, b_cpu = min(w for w, _ in bare_s), min(c for _, c in bare_s)
    print(f"bare pipelines (this process): {b_wall:.3f} s wall, {b_cpu:.3f} s cpu")
    for label, rows in ((f"{args.workers or 'all'} worker(s)", many), ("1 worker", one)):
        wall, cpu = min(w for w, _ in rows), min(c for _, c in rows)
        print(f"harness build+compare, {label}: {wall:.3f} s wall ({wall / b_wall:.2f}x), "
              f"{cpu:.3f} s cpu ({cpu / b_cpu:.2f}x)")
    sys_s, faults = min(kernel)
    print(f"  of which, with 1 worker (the run with the least system time): {sys_s:.3f} s system time, "
          f"{faults} minor page faults; one copy-on-write fault costs {cow_fault_us():.1f} us of CPU here")
    parent, worker, calls = min(split, key=lambda row: row[0] + row[1])
    print(f"  where the one-worker run's CPU went (its cheapest run): this process {parent:.3f} s "
          f"(planning, results rebuilt from the worker's rows); the worker {worker:.3f} s, of which "
          f"{calls:.3f} s inside the pipeline calls ({calls / b_cpu:.2f}x the bare calls) and "
          f"{worker - calls:.3f} s around them")
    print("targets: wall <= 1.30x on every core; cpu <= 1.15x with one worker")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
