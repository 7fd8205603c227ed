"""The mutation stage: the full pin x mutant kill matrix (operator mutants from mutmut, declared
mutants from ledger files), with claims checked, shards, and every report format.

    run(suite, options) -> section      plan, run the engine process, write reports in options.out
    check_ledgers(suite) -> None        every ledger loads and applies (InputErrors otherwise); no pins run
    exit_code(section) -> ExitCode      MUTANTS_ESCAPED on escapes over threshold or a failed claim
    render_markdown(section) -> str     the ledger table and the escapes with their diffs
    render_summary(section, out) -> str the counts, the ledger table, one line per escape
    merge(folders, out) -> section      join shard result folders into one report

Modules, one job each: targets (settings, what to mutate), ledger (declared mutants),
mutmut_adapter (every use of mutmut internals), mutants (the Mutant value), plan, engine (the
pytest-hosting process), loader (mutated code into place), pool (fork per row, deadlines),
(claim references: harness._pins.killed_by), results (the section), render/html_view/stryker (formats), shards
(merge shard folders).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness._mutate.ledger import check_ledgers
    from harness._mutate.plan import Options, parse_shard
    from harness._mutate.render import render_markdown, render_summary
    from harness._mutate.runner import exit_code, run
    from harness._mutate.shards import merge

__all__ = ["Options", "check_ledgers", "exit_code", "merge", "parse_shard", "render_markdown", "render_summary", "run"]

# Lazy: the engine process (``python -m harness._mutate.engine``) imports this package first,
# and must not pay for libcst, jsonschema and the planner it never uses.
_HOME = {"Options": "plan", "parse_shard": "plan", "merge": "shards", "render_markdown": "render",
         "render_summary": "render", "check_ledgers": "ledger",
         "exit_code": "runner", "run": "runner"}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'harness._mutate' has no attribute {name!r}")
    return getattr(importlib.import_module(f"harness._mutate.{_HOME[name]}"), name)
