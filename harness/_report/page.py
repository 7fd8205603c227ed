"""differential.html: the differential as one self-contained page a reviewer opens from the run
folder (no network, no server).

A grid per subject, cases by lanes, each cell coloured by its verdict (a cell that fails the run
outlined). Each cell is a link (``#u=N``); opening it shows the unit's verdict and why, the
unified diff of its bodies (``harness._evidence.jsondiff``, the same diff ``harness show`` and
report.md print), and the old and new bodies. Everything is plain HTML but the panel, which a
small inline script fills from the page's JSON data; every text a run made is escaped (HTML text,
and JSON made safe inside a script element).

Bounded for huge runs: at most ``CELL_CAP`` cells (the rest counted, per lane counts above the
grid), at most ``DIFF_CAP`` diffs and ``BODY_BUDGET`` characters of inlined bodies; a body over
``BODY_INLINE`` characters, or past the budget, is a link to its file under ``observations/``,
and a diff not on the page names the ``harness show`` command that prints it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from html import escape
from pathlib import Path
from typing import Any

from harness._evidence.jsondiff import capped, pretty
from harness._evidence.view import body
from harness._mutate.viewer import script_json

__all__ = ["BODY_BUDGET", "BODY_INLINE", "CELL_CAP", "DIFF_CAP", "PAGE_FILE", "render_page", "write_page"]

PAGE_FILE = "differential.html"
CELL_CAP = 20_000  # cells drawn; a run past it gets per-lane counts and the first CELL_CAP cells
DIFF_CAP = 2_000  # distinct diffs (old body, new body) inlined
DIFF_LINES = 400  # lines of one inlined diff
BODY_INLINE = 64_000  # characters of one body's pretty JSON inlined; a larger one is linked
BODY_BUDGET = 4_000_000  # characters of pretty JSON inlined in all

VERDICTS = ("identical", "reordered", "intended", "unexpected", "error")
_MARK = {"identical": "same", "reordered": "order", "intended": "intended", "unexpected": "DIFF", "error": "ERROR"}

_CSS = """
body{font:13px/1.45 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:0;text-align:center}
th{background:#f3f3f3;padding:3px 6px;font-weight:600}th.case{text-align:left}
td a{display:block;padding:4px 8px;color:#222;text-decoration:none;min-width:4.5em}
td.identical,.k-identical{background:var(--identical)}td.reordered,.k-reordered{background:var(--reordered)}
td.intended,.k-intended{background:var(--intended)}td.unexpected,.k-unexpected{background:var(--unexpected)}
td.error,.k-error{background:var(--error)}td.none{background:#f6f6f6;color:#999}
td.failed a{font-weight:700;outline:3px solid #7a0010;outline-offset:-3px}td.open{box-shadow:inset 0 0 0 3px #000}
.legend span{display:inline-block;padding:2px 8px;margin-right:4px;border:1px solid #bbb}
#panel{position:fixed;top:0;right:0;bottom:0;width:min(70em,62vw);overflow:auto;background:#fff;
border-left:3px solid #444;padding:0 1em 1em;box-shadow:-4px 0 12px rgba(0,0,0,.2)}#panel[hidden]{display:none}
#panel .cols{display:flex;gap:1em;flex-wrap:wrap}#panel .cols>div{flex:1 1 25em;min-width:0}
#panel .close{float:right;font-size:20px;text-decoration:none;color:#444;padding:.3em}
pre{background:#f6f8fa;padding:.5em;margin:.3em 0;overflow:auto;max-height:40em;font-size:12px}
pre .add{background:#ccffd8;display:block}pre .del{background:#ffc1c0;display:block}
pre .hunk{color:#0550ae;background:#ddf4ff;display:block}.note{color:#555;overflow-wrap:anywhere}
"""

_JS = """
(function(){
const data=JSON.parse(document.getElementById('differential-data').textContent);
const panel=document.getElementById('panel');
const el=(tag,text,cls)=>{const e=document.createElement(tag);if(text!==undefined)e.textContent=text;
 if(cls)e.className=cls;return e;};
function link(href,text){const a=el('a',text);a.href=href;return a;}
function diffPre(lines){const pre=el('pre');pre.id='diff';for(const l of lines){
 const c=l.startsWith('@@')?'hunk':(l.startsWith('+')&&!l.startsWith('+++'))?'add':
  (l.startsWith('-')&&!l.startsWith('---'))?'del':'';pre.appendChild(el('span',l+'\\n',c));}return pre;}
function side(u,name){const box=el('div');box.appendChild(el('h3',name));const s=u[name];
 if(s.b!==undefined&&data.bodies[s.b]!==undefined){const pre=el('pre',data.bodies[s.b]);pre.id=name+'-body';
  box.appendChild(pre);}else if(s.link){const p=el('p','not inlined ('+(s.why||'large')+'): ','note');
  p.appendChild(link(s.link,s.link));box.appendChild(p);}else box.appendChild(el('p',s.why||'no body','note'));
 if(s.link&&s.b!==undefined){const p=el('p','saved: ','note');p.appendChild(link(s.link,s.link));box.appendChild(p);}
 return box;}
function show(i){const u=data.units[i];panel.replaceChildren();
 for(const c of document.querySelectorAll('td.open'))c.classList.remove('open');
 if(!u){panel.hidden=true;return;}
 const close=link('#','\\u00d7');close.className='close';close.title='close';panel.appendChild(close);
 const cell=document.getElementById('c'+i);if(cell)cell.classList.add('open');
 panel.appendChild(el('h2',u.case+' on '+u.lane+': '+u.verdict+(u.failed?' (FAILS the run)':'')));
 if(u.detail)panel.appendChild(el('p',u.detail));if(u.why&&u.why!==u.detail)panel.appendChild(el('p','why: '+u.why));
 if(u.paths.length)panel.appendChild(el('p','paths: '+u.paths.join(', ')));
 panel.appendChild(el('h3','diff (old -> new, unified)'));
 if(u.d!==undefined&&data.diffs[u.d])panel.appendChild(diffPre(data.diffs[u.d]));
 else panel.appendChild(el('p',u.nodiff,'note'));
 const cols=el('div',undefined,'cols');cols.appendChild(side(u,'old'));cols.appendChild(side(u,'new'));
 panel.appendChild(cols);panel.appendChild(el('p','in a terminal: harness show '+u.case+' '+u.lane,'note'));
 panel.hidden=false;}
function route(){const m=/^#u=(\\d+)$/.exec(location.hash);show(m?+m[1]:-1);}
addEventListener('hashchange',route);route();
})();
"""


class _Budget:
    """What the page has inlined so far: bodies by content (each once), diffs by pair of bodies."""

    def __init__(self) -> None:
        self.bodies: list[str] = []
        self.body_index: dict[str, int] = {}
        self.body_chars = 0
        self.linked: dict[str, str] = {}  # bodies seen and not inlined: why
        self.diffs: list[list[str]] = []
        self.diff_index: dict[tuple[str, str], int] = {}

    def body(self, key: str, value: Any) -> tuple[int | None, str]:
        """The inlined body's index, or None and why it is linked instead."""
        if key in self.body_index:
            return self.body_index[key], ""
        text = pretty(value)
        if len(text) > BODY_INLINE:
            self.linked[key] = f"{len(text):,} characters"
            return None, self.linked[key]
        if self.body_chars + len(text) > BODY_BUDGET:
            return None, "the page's budget for bodies is spent"
        self.body_index[key] = len(self.bodies)
        self.bodies.append(text)
        self.body_chars += len(text)
        return self.body_index[key], ""


Body = Callable[[], Any] | None  # a side's decoded body, read when a diff needs it; None: no body


def _side(folder: Path, row: Mapping[str, Any], name: str, budget: _Budget) -> tuple[dict[str, Any], Body]:
    """One side's entry (index of its inlined body or link to its file, or why it has none) and
    its body. A body the page has met before (by digest) is not read again: most cells of a big
    run share their bodies with others."""
    link = (row.get("evidence") or {}).get(name)
    key = str(row[name]["sha256"] or link)
    if link and key in budget.body_index:
        index = budget.body_index[key]
        return {"link": link, "b": index}, lambda: json.loads(budget.bodies[index])
    if link and key in budget.linked:
        return {"link": link, "why": budget.linked[key]}, lambda: body(folder, row, name)[0]
    value, missing = body(folder, row, name)
    if missing is not None:
        return {"link": link, "why": missing}, None
    inlined, why = budget.body(key, value)
    return ({"link": link, "why": why} if inlined is None else {"link": link, "b": inlined}), lambda: value


def _unit(folder: Path, row: Mapping[str, Any], budget: _Budget) -> dict[str, Any]:
    """One cell's panel data: the row's words, both sides, and its diff's index or why none."""
    unit: dict[str, Any] = {"case": row["case"], "lane": row["lane"], "verdict": row["verdict"],
                            "failed": row["failed"], "detail": row["detail"] or "", "why": row["why"] or "",
                            "paths": list(row["paths"][:20])}
    (unit["old"], old), (unit["new"], new) = (_side(folder, row, s, budget) for s in ("old", "new"))
    unit["nodiff"] = _diff(unit, row, old, new, budget)
    return unit


def _diff(unit: dict[str, Any], row: Mapping[str, Any], old: Body, new: Body, budget: _Budget) -> str:
    """Set the unit's diff index; return why there is none (the panel's note)."""
    if old is None or new is None:
        return "no diff: a side has no body"
    if row["verdict"] == "identical":
        return "no diff: the same bytes"
    key = (row["old"]["sha256"] or "", row["new"]["sha256"] or "")
    if key not in budget.diff_index:
        if len(budget.diffs) >= DIFF_CAP:
            return f"diff not on this page (over {DIFF_CAP:,} diffs): harness show {row['case']} {row['lane']}"
        lines = capped(old(), new(), DIFF_LINES, f"harness show {row['case']} {row['lane']}")
        if lines is None:
            return f"diff not on this page (a body too large): harness show {row['case']} {row['lane']}"
        budget.diff_index[key] = len(budget.diffs)
        budget.diffs.append(lines or ["no difference: both bodies print the same JSON"])
    unit["d"] = budget.diff_index[key]
    return ""


def _counts(counts: Mapping[str, dict[str, int]]) -> str:
    """Verdicts counted per lane: the whole run, whatever the grid shows."""
    head = "".join(f'<th class="k-{v}">{_MARK[v]}</th>' for v in VERDICTS)
    rows = "".join(f"<tr><th class=case>{escape(lane)}</th>" + "".join(f"<td>{c[v]}</td>" for v in VERDICTS)
                   + f"<td>{c['failing']}</td></tr>" for lane, c in counts.items())
    return (f'<table id="counts"><thead><tr><th class=case>lane</th>{head}<th>failing</th></tr></thead>'
            f"<tbody>{rows}</tbody></table>")


def _grids(cells: list[tuple[Mapping[str, Any], int]]) -> str:
    """A grid per subject, cases by lanes, in suite order; '·' where a case does not run."""
    subjects: dict[str, list[tuple[Mapping[str, Any], int]]] = {}
    for row, i in cells:
        subjects.setdefault(row["subject"], []).append((row, i))
    return "".join(_grid(subject, rows) for subject, rows in subjects.items())


def _grid(subject: str, rows: list[tuple[Mapping[str, Any], int]]) -> str:
    lanes = list(dict.fromkeys(r["lane"] for r, _ in rows))
    cases = list(dict.fromkeys(r["case"] for r, _ in rows))
    at = {(r["case"], r["lane"]): (r, i) for r, i in rows}
    head = "".join(f"<th>{escape(lane)}</th>" for lane in lanes)
    body_rows = "".join(f"<tr><th class=case>{escape(case)}</th>"
                        + "".join(_cell(at.get((case, lane))) for lane in lanes) + "</tr>" for case in cases)
    return (f"<h2>{escape(subject)}: old vs new</h2><table class=grid><thead><tr><th class=case>case</th>{head}"
            f"</tr></thead><tbody>{body_rows}</tbody></table>")


def _cell(found: tuple[Mapping[str, Any], int] | None) -> str:
    if found is None:
        return '<td class="none">·</td>'
    row, i = found
    cls = row["verdict"] + (" failed" if row["failed"] else "")
    title = escape(f"{row['case']} on {row['lane']}: {row['verdict']}" + (" (fails the run)" if row["failed"] else ""))
    mark = _MARK[row["verdict"]] + ("!" if row["failed"] else "")
    return f'<td id="c{i}" class="{cls}" title="{title}"><a href="#u={i}">{mark}</a></td>'


def render_page(report: Mapping[str, Any], folder: Path) -> str:
    """The page for ``report``, whose bodies are saved under run ``folder``."""
    budget = _Budget()
    counts: dict[str, dict[str, int]] = {}
    cells: list[tuple[Mapping[str, Any], int]] = []
    units: list[dict[str, Any]] = []
    total = 0
    for row in report["differential"]:
        total += 1
        lane = counts.setdefault(row["lane"], dict.fromkeys([*VERDICTS, "failing"], 0))
        lane[row["verdict"]] += 1
        lane["failing"] += int(row["failed"])
        if len(cells) < CELL_CAP:
            cells.append(({k: row[k] for k in ("subject", "case", "lane", "verdict", "failed")}, len(units)))
            units.append(_unit(folder, row, budget))
    data = {"units": units, "bodies": budget.bodies, "diffs": budget.diffs}
    return _document(report, total, counts, cells, data)


def _document(report: Mapping[str, Any], total: int, counts: Mapping[str, dict[str, int]],
              cells: list[tuple[Mapping[str, Any], int]], data: dict[str, Any]) -> str:
    suite = escape(report["suite"]["name"])
    s = report["summary"]
    v = s["verdicts"]
    shown = (f"<p class=note>The grid shows the first {len(cells):,} of {total:,} case x lane runs; "
             "every one is in report.json, and <code>harness show CASE LANE</code> prints any of them.</p>"
             if len(cells) < total else "")
    legend = "".join(f'<span class="k-{k}">{_MARK[k]} = {k}</span>' for k in VERDICTS)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Differential: {suite}</title>'
        f"<style>{_CSS}{_legend_css()}</style></head><body><h1>Differential: {suite}</h1>"
        f"<p>{s['units']} case x lane runs: {v['identical']} identical, {v['reordered']} reordered, "
        f"{v['intended']} intended, {v['unexpected']} unexpected, {v['error']} errors; "
        f"<b>{s['failed']} failing</b>. Exit code {report['exit']['code']}: {escape(report['exit']['reason'])}.</p>"
        f'<p class="legend">{legend} outlined, "!" = fails the run</p>'
        "<p>Open a cell for its diff and both bodies.</p>"
        "<noscript><p>The cells open with scripts only; without them, "
        "<code>harness show CASE LANE</code> prints the same.</p></noscript>"
        f"{shown}{_grids(cells)}<h2>By lane</h2>{_counts(counts)}"
        '<section id="panel" hidden></section>'
        f'<script id="differential-data" type="application/json">{script_json(data)}</script>'
        f"<script>{_JS}</script></body></html>\n")


# the verdicts' colours, as CSS variables the grid, the counts and the legend share
_COLOURS = {"identical": "#b7e4c7", "reordered": "#ffe08a", "intended": "#a9c8f5", "unexpected": "#f28b82",
            "error": "#c9a0dc"}


def _legend_css() -> str:
    return ":root{" + "".join(f"--{k}:{c};" for k, c in _COLOURS.items()) + "}"


def write_page(report: Mapping[str, Any], folder: Path) -> None:
    """``differential.html`` in run ``folder``."""
    (folder / PAGE_FILE).write_text(render_page(report, folder), encoding="utf-8")
