"""The two mutation pages opened in headless Chromium (Debian's ``chromium``), offline from
file:// URLs: the official viewer renders the Stryker report from the vendored bundle, and the
matrix page's script filters and sorts. A probe script appended to each page writes what it sees
into the DOM, which ``--dump-dom`` prints."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness._mutate.html_view import render_html
from harness._mutate.results import expand
from harness._mutate.stryker import stryker_report
from harness._mutate.viewer import render_viewer
from tests.unit.mutate.test_html_view import _section as matrix_section
from tests.unit.mutate.test_stryker import SOURCE, _plan_and_section

pytestmark = pytest.mark.slow

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")

_WALK = """function walk(n){let t='';for(const c of n.childNodes){if(c.nodeType===3)t+=c.textContent+' ';
else if(c.nodeType===1&&c.tagName!=='STYLE'&&c.tagName!=='SCRIPT'){if(c.shadowRoot)t+=walk(c.shadowRoot);
t+=walk(c);}}return t;}"""


def _probe(page: str, body: str) -> str:
    script = (f"<script>{_WALK}addEventListener('load',()=>setTimeout(()=>{{const out={{}};{body};"
              "const o=document.createElement('pre');o.id='probe';o.textContent=JSON.stringify(out);"
              "document.body.appendChild(o);},1000));</script>")
    return page.replace("</body>", script + "</body>")


def _open(path: Path) -> dict[str, Any]:
    if BROWSER is None:
        pytest.skip("no headless Chromium (Debian: apt-get install chromium)")
    done = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                           "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found is not None, f"the probe never ran: {done.stderr[-2000:]}"
    loaded: dict[str, Any] = json.loads(found.group(1).replace("&lt;", "<").replace("&gt;", ">")
                                        .replace("&quot;", '"').replace("&amp;", "&"))
    return loaded


@pytest.mark.expensive  # Chromium: about a CPU second; tests/unit/mutate/test_stryker.py checks the page it loads
def test_the_official_viewer_renders_the_report_offline(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    plan, section = _plan_and_section()
    page = render_viewer(stryker_report(section, tmp_path, plan), "bundled")
    (tmp_path / "viewer.html").write_text(_probe(page, (
        "const a=document.querySelector('mutation-test-report-app');"
        "out.defined=!!customElements.get('mutation-test-report-app');"
        "out.text=a.shadowRoot?walk(a.shadowRoot).replace(/\\s+/g,' '):''")))
    seen = _open(tmp_path / "viewer.html")
    assert seen["defined"] is True
    assert "m.py" in seen["text"] and "Mutation Score" in seen["text"]
    assert "50.00" in seen["text"]  # one killed, one survived


@pytest.mark.expensive
def test_the_matrix_page_filters_by_status_file_and_pin_and_sorts(tmp_path: Path) -> None:
    section = matrix_section()
    full = expand(section)
    pin = full["pin_kills"][3]["pin"]
    (tmp_path / "matrix.html").write_text(_probe(render_html(section), (
        "const shown=()=>document.getElementById('shown').textContent;"
        "const set=(id,v)=>{const e=document.getElementById(id);e.value=v;e.dispatchEvent(new Event('input'))};"
        "out.all=shown();set('f-status','escaped');out.escaped=shown();set('f-status','');"
        "set('f-file','pkg/f1.py');out.file=shown();set('f-file','');"
        f"set('f-pin',{json.dumps(pin)});out.pin=shown();"
        "out.pinCol=document.getElementById('pin-col').hidden;"
        "out.outcomes=[...document.querySelectorAll('#mutants tbody tr:not([hidden])')]"
        ".map(r=>r.cells[r.cells.length-1].textContent);set('f-pin','');"
        "const th=document.querySelector('#mutants thead th:nth-child(3)');th.click();th.click();"
        "out.sites=[...document.querySelectorAll('#mutants tbody tr')].map(r=>r.cells[2].textContent)")))
    seen = _open(tmp_path / "matrix.html")
    escaped = sum(m["status"] in ("survived", "no_coverage") for m in full["mutants"])
    in_f1 = sum(m["file"] == "pkg/f1.py" for m in full["mutants"])
    reaching = [m for m in full["mutants"] if pin in m["covered_by"]]
    assert seen["all"] == "60 of 60 mutants shown"
    assert seen["escaped"] == f"{escaped} of 60 mutants shown"
    assert seen["file"] == f"{in_f1} of 60 mutants shown"
    assert seen["pin"] == f"{len(reaching)} of 60 mutants shown" and seen["pinCol"] is False
    assert sorted(seen["outcomes"]) == sorted("failed" if pin in m["killed_by"] else "green" for m in reaching)
    key = [(s.split(":")[0], int(s.split(":")[1])) for s in seen["sites"]]
    assert key == sorted(key, reverse=True)  # clicked twice: descending by site


@pytest.mark.expensive
def test_picking_a_pin_group_shows_it_red_where_any_of_its_items_is(tmp_path: Path) -> None:
    from harness._mutate.results import build_section

    items = ["c.cases.yaml::case[a]::pin", "c.cases.yaml::case[b]::pin"]
    metas = [{"key": f"k{i}", "id": f"m{i}", "kind": "operator", "file": "f.py", "module": "m", "function": "f",
              "line": i + 1, "column": 1, "end_line": i + 1, "end_column": 2, "operator": "Op", "title": "t",
              "diff": "", "claims": [], "equivalent": None} for i in range(3)]
    rows = {"k0": {"key": "k0", "pins": {items[0]: "passed", items[1]: "failed"}, "details": {}},
            "k1": {"key": "k1", "pins": {items[0]: "passed", items[1]: "passed"}, "details": {}},
            "k2": {"key": "k2", "pins": {}, "details": {}}}
    plan = {"selected": list(rows), "mutants": metas, "suite_prefix": "", "suite_name": "g", "threshold": {},
            "shard": None}
    section = build_section(plan, {"pins": items, "outcomes": dict.fromkeys(items, "passed")}, rows)
    (tmp_path / "groups.html").write_text(_probe(render_html(section), (
        "const p=document.getElementById('f-pin');p.value='c.cases.yaml::case::pin';"
        "p.dispatchEvent(new Event('input'));out.shown=document.getElementById('shown').textContent;"
        "out.cells=Object.fromEntries([...document.querySelectorAll('#mutants tbody tr:not([hidden])')]"
        ".map(r=>[r.querySelector('summary').textContent,r.cells[r.cells.length-1].textContent]))")))
    seen = _open(tmp_path / "groups.html")
    assert seen["shown"] == "2 of 3 mutants shown"  # m2 reaches no item of the group
    assert seen["cells"] == {"m0": "failed", "m1": "green"}
