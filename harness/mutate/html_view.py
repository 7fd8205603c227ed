"""A static, self-contained HTML view of the kill matrix (no scripts, no network)."""

from __future__ import annotations

from html import escape
from typing import Any

from harness.mutate.render import counts_line
from harness.mutate.results import expand

__all__ = ["render_html"]

_CSS = """
body{font:13px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 4px}
th.pin{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;max-height:22em;
white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
tbody td{text-align:center}tbody td:nth-child(-n+3){text-align:left}
.K{background:#c62828;color:#fff}.T{background:#ef6c00;color:#fff}
.X{background:#6a1b9a;color:#fff}.P{background:#e8f5e9}.survived,.no_coverage{background:#fff3cd}
.killed{background:#e8f5e9}.unviable,.equivalent,.pending{background:#eee}
details pre{background:#f6f8fa;padding:.5em;margin:0}
"""

_CELL = {"failed": ("K", "red: failed"), "crash": ("X", "red: crashed"), "timeout": ("T", "timed out"),
         "passed": ("P", "ran, stayed green")}


def _row(m: dict[str, Any], pins: list[str], outcomes: dict[str, str]) -> str:
    cells = []
    for p in pins:  # terse cells: a full matrix has rows x pins of them
        mark = _CELL.get(outcomes.get(p, ""), ("", ""))[0]
        cells.append(f"<td class={mark}>{mark if mark != 'P' else '·'}</td>" if mark else "<td></td>")
    label = (f'<details><summary>{escape(m["id"])}</summary><div>{escape(m["title"])}</div>'
             f'<pre>{escape(m["diff"])}</pre></details>')
    return (f'<tr><td>{label}</td><td class="{m["status"]}">{escape(m["status"])}</td>'
            f'<td>{escape(m["file"])}:{m["line"]}</td>{"".join(cells)}</tr>')


def _outcomes(m: dict[str, Any]) -> dict[str, str]:
    out = {p: "passed" for p in m["covered_by"]}
    out.update({p: "failed" for p in m["killed_by"]})
    out.update({p: "crash" for p in m["crashed"]})
    out.update({p: "timeout" for p in m["timed_out"]})
    return out


_WORST = ("failed", "crash", "timeout", "passed")  # a pin group's cell: its reddest item


def _grouped(outcomes: dict[str, str], groups: dict[str, list[str]]) -> dict[str, str]:
    out = dict(outcomes)
    for name, items in groups.items():
        seen = [outcomes[i] for i in items if i in outcomes]
        if seen:
            out[name] = min(seen, key=lambda o: _WORST.index(o) if o in _WORST else len(_WORST))
    return out


def render_html(section: dict[str, Any]) -> str:
    section = expand(section)
    rows_ = section.get("pin_kills", [])
    pins = [r.get("group", r["pin"]) for r in rows_]  # one column per pin; a group's items in its title
    groups = {r["group"]: r["items"] for r in rows_ if "group" in r}
    titles = {r["group"]: f"{r['group']} ({len(r['items'])} items)" for r in rows_ if "group" in r}
    head = "".join(f'<th class="pin" title="{escape(titles.get(p, p))}">{escape(p)}</th>' for p in pins)
    rows = "\n".join(_row(m, pins, _grouped(_outcomes(m), groups)) for m in section["mutants"])
    summary = counts_line(section)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<title>Mutation matrix: {escape(section.get("suite", ""))}</title><style>{_CSS}</style></head>'
            f'<body><h1>Mutation matrix: {escape(section.get("suite", ""))}</h1><p>{escape(summary)}</p>'
            f'<p>K failed, X crashed, T timed out, · ran and stayed green, blank: the pin does not reach '
            f'the mutated function.</p><table><thead><tr><th>mutant</th><th>status</th><th>site</th>{head}'
            f'</tr></thead><tbody>\n{rows}\n</tbody></table></body></html>\n')
