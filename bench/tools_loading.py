"""Benchmark: loading a suite whose cases pick their tools from one big file, as a ratio to
the same suite with the same tools written inline in the case file.

    python bench/tools_loading.py [--cases 492] [--repeat 3]

Generated in a temporary folder (the toy subject of tests/scenarios): one MCP ``tools/list``
dump of ``--cases`` tools, about 800 bytes each (about 400 KB for 492), and a case file whose
every case picks one tool from it; beside it, a suite with each case's tool inline. A file
parsed again for every case made the first quadratic (21.4 s against 0.44 s before tool files
were read once per load). The same again with an OpenAPI document of ``--cases`` operations,
each case importing one (against the tools it imports, written inline), since an OpenAPI
document was still parsed once a case. Printed in wall and CPU time, best of ``--repeat``.
Target: each picking suite within 1.5x of its inline one.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from harness._load import load_suite  # noqa: E402
from harness._sources.openapi import import_document  # noqa: E402


def _tool(i: int) -> dict[str, Any]:
    props = {f"field_{j}": {"type": "string", "description": f"the {j}th field of tool {i}, in a sentence"}
             for j in range(8)}
    return {"name": f"tool_{i}", "description": f"tool number {i}",
            "inputSchema": {"type": "object", "properties": props, "required": ["field_0"]}}


def _suite(base: Path, name: str, cases: int, picking: bool) -> Path:
    root = base / name
    shutil.copytree(REPO / "tests" / "scenarios" / "suites" / "toy", root)
    (root / "toy.cases.yaml").unlink()
    tools = [_tool(i) for i in range(cases)]
    (root / "dump.tools.json").write_text(json.dumps({"tools": tools}))
    lines = ["version: 1", "subject: toy", "cases:"]
    for i, tool in enumerate(tools):
        source = (f"{{mcp: dump.tools.json, pick: [{tool['name']}]}}" if picking else
                  json.dumps([{"name": tool["name"], "description": tool["description"],
                               "input_schema": tool["inputSchema"]}]))
        lines += [f"  - id: case-{i}", f"    tools: {source}"]
    (root / "many.cases.yaml").write_text("\n".join(lines) + "\n")
    return root


def _operation(i: int) -> str:
    props = "".join(f"\n                  field_{j}: {{type: string, description: the {j}th field of tool {i}}}"
                    for j in range(8))
    return f"""
  /tool_{i}:
    post:
      operationId: tool_{i}
      description: tool number {i}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [field_0]
              properties:{props}
      responses: {{"200": {{description: ok}}}}"""


def _openapi_suites(base: Path, cases: int) -> tuple[Path, Path]:
    """A suite whose every case imports one operation of one document, and one with each
    case's imported tool written inline."""
    importing, inline = base / "importing", base / "imported_inline"
    for root in (importing, inline):
        shutil.copytree(REPO / "tests" / "scenarios" / "suites" / "toy", root)
        (root / "toy.cases.yaml").unlink()
    text = "openapi: 3.0.3\ninfo: {title: many, version: '1'}\npaths:" + "".join(_operation(i) for i in range(cases))
    (importing / "many.openapi.yaml").write_text(text + "\n")
    tools = import_document(importing / "many.openapi.yaml").tools
    lines, inline_lines = ["version: 1", "subject: toy", "cases:"], ["version: 1", "subject: toy", "cases:"]
    for i, tool in enumerate(tools):
        lines += [f"  - id: case-{i}", f"    tools: {{openapi: many.openapi.yaml, operations: [tool_{i}]}}"]
        own = {key: tool[key] for key in ("name", "description", "input_schema")}  # inline takes no openapi key
        inline_lines += [f"  - id: case-{i}", f"    tools: {json.dumps([own])}"]
    (importing / "many.cases.yaml").write_text("\n".join(lines) + "\n")
    (inline / "many.cases.yaml").write_text("\n".join(inline_lines) + "\n")
    return importing, inline


def _timed(root: Path) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    load_suite(root)
    return time.perf_counter() - wall, time.process_time() - cpu


def _best(rows: list[tuple[float, float]]) -> tuple[float, float]:
    return min(w for w, _ in rows), min(c for _, c in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=492)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        suites = {"picking": _suite(Path(tmp), "picking", args.cases, True),
                  "inline": _suite(Path(tmp), "inline", args.cases, False)}
        suites["importing"], suites["imported inline"] = _openapi_suites(Path(tmp), args.cases)
        size = (suites["picking"] / "dump.tools.json").stat().st_size
        doc_size = (suites["importing"] / "many.openapi.yaml").stat().st_size
        rows: dict[str, list[tuple[float, float]]] = {name: [] for name in suites}
        for _ in range(args.repeat):  # interleaved, so drift in machine load hits all alike
            for name, root in suites.items():
                rows[name].append(_timed(root))
    best = {name: _best(found) for name, found in rows.items()}
    for title, pick, inline in ((f"{args.cases} cases, each picking one tool from a {size / 1024:.0f} KB dump",
                                 "picking", "inline"),
                                (f"{args.cases} cases, each importing one operation of a {doc_size / 1024:.0f} KB "
                                 "OpenAPI document", "importing", "imported inline")):
        (p_wall, p_cpu), (i_wall, i_cpu) = best[pick], best[inline]
        print(f"{title}; best of {args.repeat}")
        print(f"  tools inline:          {i_wall:.3f} s wall, {i_cpu:.3f} s cpu")
        print(f"  from one file:         {p_wall:.3f} s wall ({p_wall / i_wall:.2f}x), "
              f"{p_cpu:.3f} s cpu ({p_cpu / i_cpu:.2f}x)")
    print("target: each within 1.5x of its inline suite")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
