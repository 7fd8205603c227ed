"""Fail when the package's cyclomatic complexity passes its ceilings (tox -e lint).

Ceilings: no block rated D or worse (complexity 21 and up), and the mean over every block radon
rates (functions, methods, classes) at most MAX_MEAN. Issue 15's target for the mean is 3.5; the
package measured 4.52 before that work, 4.01 after the relayout and 3.21 once long functions were
split and duplicated branches merged, so MAX_MEAN is a ratchet just above the measured mean: it
stops the mean from creeping back up, and moves down when the mean falls. The mean is radon's
own (``radon cc -a``), so the number printed here is the one ``radon cc -a -s harness`` prints.

    python scripts/check_complexity.py [PATH ...]     exit 0 within the ceilings, 1 past them
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from radon.complexity import cc_rank, cc_visit

__all__ = ["MAX_MEAN", "WORST_RANK", "blocks", "main"]

MAX_MEAN = 3.3  # measured 3.21; issue 15 asks for 3.5 at most. Lower it when the mean falls
WORST_RANK = "C"  # the worst rank allowed: D (21+) and beyond fail


def blocks(paths: list[Path]) -> Iterator[tuple[str, str, int]]:
    """(file, block name, complexity) for every block radon rates, methods included."""
    for root in paths:
        files = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for file in files:
            for block in cc_visit(file.read_text()):
                # cc_visit lists methods as blocks of their own beside their class, as radon's
                # `cc -a` counts them
                yield str(file), f"{block.lineno}:{block.fullname}", block.complexity


def main(argv: list[str]) -> int:
    found = list(blocks([Path(a) for a in argv] or [Path("harness")]))
    if not found:
        print("no blocks found: is the path right?", file=sys.stderr)
        return 1
    mean = sum(c for _, _, c in found) / len(found)
    worst = sorted((f for f in found if cc_rank(f[2]) > WORST_RANK), key=lambda f: -f[2])
    for file, name, complexity in worst:
        print(f"{file}:{name} complexity {complexity} ({cc_rank(complexity)}): split it")
    verdict = "ok" if mean <= MAX_MEAN and not worst else "over"
    print(f"{len(found)} blocks, mean complexity {mean:.2f} (ceiling {MAX_MEAN}), "
          f"{len(worst)} blocks rated D or worse: {verdict}")
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
