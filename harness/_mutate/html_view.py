"""The kill matrix as one self-contained page a reviewer reads (no network).

Escapes come first, with their diffs. Then one row per mutant (escapes first, then by file and
line) and one row per pin, both plain HTML so the page reads without scripts. A small inline
script sorts either table by any column and filters the mutants by status, file and pin: picking
a pin adds a column with that pin's outcome on each mutant (the matrix, one pin at a time,
instead of a mutants x pins grid of cells).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from harness._mutate.render import counts_line
from harness._mutate.results import compact, expand, expected_survivor
from harness._mutate.viewer import VIEWER_FILE, script_json

__all__ = ["ESCAPES", "render_html", "status_rank"]

ESCAPES = ("survived", "no_coverage")
# the order rows take by default: what a reviewer must read first
_RANK = {"survived": 0, "no_coverage": 1, "pending": 2, "unviable": 3, "timeout": 4, "killed": 5, "equivalent": 6}

_CSS = """
body{font:13px/1.45 system-ui,sans-serif;margin:1.5em;color:#222;max-width:110em}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
th{background:#f3f3f3;position:sticky;top:0;cursor:pointer;user-select:none}th[aria-sort]::after{content:" ▲"}
th[aria-sort=descending]::after{content:" ▼"}td.n{text-align:right}
.survived,.no_coverage{background:#fff3cd}.killed{background:#e8f5e9}.timeout{background:#ffe0b2}
.unviable,.equivalent,.pending{background:#eee}.red{background:#c62828;color:#fff}.green{background:#e8f5e9}
details pre{background:#f6f8fa;padding:.5em;margin:.3em 0;overflow-x:auto}
#filters{display:flex;gap:1em;flex-wrap:wrap;align-items:end;margin:.5em 0}
#filters label{display:flex;flex-direction:column}
.escape{border-left:4px solid #e0a800;padding:.2em .8em;margin:.6em 0}code{font-size:12px}
#mutants td:first-child{max-width:36em;overflow-wrap:anywhere}
"""

_JS = """
(function(){
const data=JSON.parse(document.getElementById('matrix-data').textContent);
const mt=document.getElementById('mutants'),pt=document.getElementById('pins');
const fs=document.getElementById('f-status'),ff=document.getElementById('f-file'),fp=document.getElementById('f-pin');
const shown=document.getElementById('shown'),pinHead=document.getElementById('pin-col');
const groups=new Map(data.groups);
function outcome(m,ix){const r=data.mutants[m],any=l=>ix.some(p=>l.includes(p));
 if(any(r.x))return['crash','red'];if(any(r.k))return['failed','red'];if(any(r.t))return['timeout','timeout'];
 if(any(data.sets[r.c]))return['green','green'];return['not run',''];}
function apply(){const s=fs.value,f=ff.value,ix=groups.get(fp.value);let n=0;
 pinHead.hidden=!ix;pinHead.textContent=ix?'outcome of '+fp.value:'';
 for(const tr of mt.tBodies[0].rows){const m=+tr.dataset.i,r=data.mutants[m];
  const cell=tr.cells[tr.cells.length-1],[o,cls]=ix?outcome(m,ix):['',''];cell.hidden=!ix;cell.textContent=o;
  cell.className=cls;cell.dataset.sort=o;
  const reach=!ix||o!=='not run';
  const ok=(!s||(s==='escaped'?['survived','no_coverage'].includes(tr.dataset.status):tr.dataset.status===s))
   &&(!f||tr.dataset.file===f)&&reach;tr.hidden=!ok;if(ok)n++;}
 shown.textContent=n+' of '+data.mutants.length+' mutants shown';}
function sortBy(table,th){const col=th.cellIndex,rows=[...table.tBodies[0].rows];
 const desc=th.getAttribute('aria-sort')==='ascending';
 for(const h of table.tHead.rows[0].cells)h.removeAttribute('aria-sort');
 th.setAttribute('aria-sort',desc?'descending':'ascending');
 const key=tr=>{const c=tr.cells[col],v=c.dataset.sort??c.textContent;return v};
 const num=th.dataset.type==='n';
 rows.sort((a,b)=>{const x=key(a),y=key(b);const d=num?(+x)-(+y):x.localeCompare(y);
  return (desc?-d:d)||(+a.dataset.i)-(+b.dataset.i);});
 for(const r of rows)table.tBodies[0].appendChild(r);}
for(const t of [mt,pt])for(const th of t.tHead.rows[0].cells)th.addEventListener('click',()=>sortBy(t,th));
for(const el of [fs,ff,fp])el.addEventListener('input',apply);
pt.addEventListener('click',e=>{const tr=e.target.closest('tbody tr');if(tr){fp.value=tr.dataset.pin;apply();
 mt.scrollIntoView();}});
apply();
})();
"""


def status_rank(status: str) -> int:
    return _RANK.get(status, len(_RANK))


def _site(m: dict[str, Any]) -> str:
    return f"{m['file']}:{m['line']}"


def _escapes(mutants: list[dict[str, Any]]) -> str:
    escaped = [m for m in mutants if m["status"] in ESCAPES and not expected_survivor(m)]
    known = [m for m in mutants if m["status"] in ESCAPES and expected_survivor(m)]
    apart = (f"<h2>Expected survivors ({len(known)})</h2><p>Known escapes a ledger declares (<code>survives:</code>); "
             "a pin that starts killing one fails its claim.</p>" + "".join(map(_escape, known))) if known else ""
    if not escaped:
        none = "None beyond the expected survivors below." if known else \
            "None: every mutant that ran turned at least one pin red."
        return f"<h2>Escapes</h2><p>{none}</p>" + apart
    return f"<h2>Escapes ({len(escaped)})</h2>" + "".join(map(_escape, escaped)) + apart


def _escape(m: dict[str, Any]) -> str:
    """One escaped mutant: its site, why no pin caught it, and its diff."""
    why = ("no pin reaches it" if m["status"] == "no_coverage"
           else f"{len(m['covered_by'])} covering pin(s) stayed green")
    if expected_survivor(m):
        why += f"; expected: {m['claim']['survives']}"
    return (f'<div class="escape" id="escape-{escape(m["id"])}"><b>{escape(m["id"])}</b> '
            f'<span class="{m["status"]}">{m["status"]}</span> <code>{escape(_site(m))}</code> '
            f'{escape(m.get("function") or "")}: {escape(why)}<details open><summary>'
            f'{escape(m["title"])}</summary><pre>{escape(m["diff"])}</pre></details></div>')


def _mutant_rows(mutants: list[dict[str, Any]]) -> str:
    order = sorted(range(len(mutants)), key=lambda i: (status_rank(mutants[i]["status"]), mutants[i]["file"],
                                                      mutants[i]["line"], mutants[i]["id"]))
    rows = []
    for i in order:
        m = mutants[i]
        red = len(m["killed_by"]) + len(m["timed_out"])
        rows.append(
            f'<tr data-i="{i}" data-status="{m["status"]}" data-file="{escape(m["file"])}">'
            f'<td><details><summary>{escape(m["id"])}</summary>{escape(m["title"])}<pre>{escape(m["diff"])}</pre>'
            f'</details></td><td class="{m["status"]}" data-sort="{status_rank(m["status"])}">{m["status"]}</td>'
            f'<td data-sort="{escape(m["file"])}:{m["line"]:06d}">{escape(_site(m))}</td>'
            f'<td>{escape(m.get("function") or "")}</td><td class="n">{red}</td>'
            f'<td class="n">{len(m["covered_by"])}</td><td hidden></td></tr>')
    return "\n".join(rows)


def _pins(section: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """(name, items) per row of the pin table: a pin group (one pin on several lanes or
    parameters) is one pin, named by its group id; a plain pin is its own one item."""
    return [(r.get("group", r["pin"]), r.get("items", [r["pin"]])) for r in section.get("pin_kills", [])]


def _pin_rows(section: Mapping[str, Any], mutants: list[dict[str, Any]]) -> str:
    covering = [set(m["covered_by"]) | set(m["killed_by"]) | set(m["timed_out"]) for m in mutants]
    rows = []
    for i, ((name, items), r) in enumerate(zip(_pins(section), section.get("pin_kills", []), strict=True)):
        covers = sum(1 for reached in covering if reached.intersection(items))
        rows.append(_pin_row(i, name, items, r, covers))
    return "\n".join(rows)


def _pin_row(i: int, name: str, items: list[str], r: dict[str, Any], covers: int) -> str:
    """One pin's row: its name (a group with how many items), kills, unique kills, mutants it covers."""
    more = f" <small>({len(items)} items)</small>" if len(items) > 1 else ""
    return (f'<tr data-i="{i}" data-pin="{escape(name)}"><td><code>{escape(name)}</code>{more}</td>'
            f'<td class="n">{r["kills"]}</td><td class="n">{r["unique_kills"]}</td>'
            f'<td class="n">{covers}</td></tr>')


def _data(section: Mapping[str, Any], expanded: dict[str, Any]) -> dict[str, Any]:
    """Per mutant the pins that went red (k, crashes x, timeouts t) and its covering set (c), by
    index: the compact section's own encoding, so the page grows with mutants + pins."""
    indexed = section if "pin_sets" in section else compact(expanded)
    ids: list[str] = indexed["pins"]["ids"]
    mutants = [{"k": m["killed_by"], "x": m["crashed"], "t": m["timed_out"], "c": m["covered_by"]}
               for m in indexed["mutants"]]
    return {"pins": ids, "sets": indexed["pin_sets"], "mutants": mutants, "groups": _groups(expanded, ids)}


def _groups(expanded: dict[str, Any], ids: list[str]) -> list[list[Any]]:
    """Each row of the pin table as [name, the indices of its items]: the page reads a group's items."""
    index = {p: i for i, p in enumerate(ids)}
    return [[name, [index[p] for p in items]] for name, items in _pins(expanded)]


def _options(values: list[str], label: str) -> str:
    return f'<option value="">{label}</option>' + "".join(
        f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)


def _filters(full: dict[str, Any]) -> str:
    """The mutant table's filters: by status (escaped first), by file, by pin (any the table names)."""
    statuses = sorted({m["status"] for m in full["mutants"]}, key=status_rank)
    files = sorted({m["file"] for m in full["mutants"]})
    pins = [name for name, _items in _pins(full)]
    return (
        '<div id="filters"><label>status<select id="f-status">'
        + _options(["escaped", *statuses], "any")
        + '</select></label><label>file<select id="f-file">' + _options(files, "any") + "</select></label>"
        '<label>pin<input id="f-pin" list="pin-list" size="60" placeholder="a pin node id"></label>'
        '<datalist id="pin-list">' + "".join(f'<option value="{escape(p)}">' for p in pins) + "</datalist>"
        '<span id="shown"></span></div>')


def render_html(section: Mapping[str, Any]) -> str:
    full = expand(section)
    mutants = full["mutants"]
    suite = escape(full.get("suite", ""))
    filters = _filters(full)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mutation matrix: {suite}</title>'
        f"<style>{_CSS}</style></head><body><h1>Mutation matrix: {suite}</h1>"
        f"<p>{escape(counts_line(full))}</p>"
        f'<p>The same report in the Stryker viewer: <a href="{VIEWER_FILE}">{VIEWER_FILE}</a>.</p>'
        f"{_escapes(mutants)}<h2>Mutants</h2>"
        "<noscript><p>Sorting and filters need scripts; the rows below are escapes first.</p></noscript>"
        f'{filters}<table id="mutants"><thead><tr><th>mutant</th><th data-type="n">status</th><th>site</th>'
        '<th>function</th><th data-type="n">red pins</th><th data-type="n">covering pins</th>'
        f'<th id="pin-col" hidden></th></tr></thead><tbody>\n{_mutant_rows(mutants)}\n</tbody></table>'
        '<h2>Pins</h2><p>Click a pin to see its outcome on every mutant it reaches.</p>'
        '<table id="pins"><thead><tr><th>pin</th><th data-type="n">kills</th><th data-type="n">unique kills</th>'
        f'<th data-type="n">covers</th></tr></thead><tbody>\n{_pin_rows(full, mutants)}\n</tbody></table>'
        f'<script id="matrix-data" type="application/json">{script_json(_data(section, full))}</script>'
        f"<script>{_JS}</script></body></html>\n")
