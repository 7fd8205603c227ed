"""differential.html from a real run, opened in headless Chromium (Debian's ``chromium``) offline
from a file:// URL: a probe script clicks a cell and reads the panel it opens, and a screenshot of
the page with that cell open is read pixel by pixel: each cell drawn in its verdict's colour at the
place the browser laid it out, the diff's removed and added lines in red and green."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.inproc import harness_main

pytestmark = pytest.mark.slow

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
WINDOW = (1400, 900)

SUITE = {
    "suite.yaml": """version: 1
name: page
cases: ["*.cases.yaml"]
lanes: ["lanes.yaml"]
subjects:
  s: {old: "pipes:old", new: "pipes:new", wires: [w], input_keys: [behaviour]}
""",
    "lanes.yaml": """version: 1
lanes:
  - {id: plain, wire: w, provider: none, model: m-1}
  - {id: strict, wire: w, provider: none, model: m-1}
""",
    "s.cases.yaml": """version: 1
subject: s
cases:
  - id: undeclared
    tools: [{name: a, description: d, input_schema: {type: object}}]
  - id: declared
    tools: [{name: b, description: d, input_schema: {type: object}}]
    expect:
      strict: {diverges: {why: the strict lane marks tools strict, paths: ["tools[*].strict"]}}
  - id: raises
    tools: [{name: c, description: d, input_schema: {type: object}}]
    input: {behaviour: raise}
""",
    "pipes.py": """def old(inp, lane):
    return {"model": lane.get("model"), "tools": inp["tools"]}


def new(inp, lane):
    if inp.get("behaviour") == "raise":
        raise ValueError("refused")
    tools = [dict(t, strict=True) if lane.get("id") == "strict" else t for t in inp["tools"]]
    return {"model": lane.get("model"), "tools": tools}
""",
}

# the page's verdict colours (harness._report.page._COLOURS) and diff line colours, as RGB
COLOURS = {"identical": (0xb7, 0xe4, 0xc7), "intended": (0xa9, 0xc8, 0xf5), "unexpected": (0xf2, 0x8b, 0x82),
           "error": (0xc9, 0xa0, 0xdc)}
ADDED, REMOVED = (0xcc, 0xff, 0xd8), (0xff, 0xc1, 0xc0)

_PROBE = """<script>addEventListener('load',()=>setTimeout(()=>{const out={cells:{}};
for(const td of document.querySelectorAll('table.grid td[id]')){const r=td.getBoundingClientRect();
 out.cells[td.title]=[r.left,r.top,r.width,r.height,td.className];}
out.hiddenBefore=document.getElementById('panel').hidden;
[...document.querySelectorAll('table.grid td a')].find(a=>a.closest('td').title.startsWith('undeclared on strict'))
 .click();
setTimeout(()=>{const p=document.getElementById('panel');out.hash=location.hash;out.hiddenAfter=p.hidden;
 out.heading=p.querySelector('h2').textContent;out.diff=document.getElementById('diff').textContent;
 out.old=document.getElementById('old-body').textContent;out.new=document.getElementById('new-body').textContent;
 const o=document.createElement('pre');o.id='probe';o.textContent=JSON.stringify(out);
 document.body.appendChild(o);},300);},500));</script>"""


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    if BROWSER is None:
        pytest.skip("no headless Chromium (Debian: apt-get install chromium)")
    return subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--force-device-scale-factor=1", f"--window-size={WINDOW[0]},{WINDOW[1]}",
                           "--virtual-time-budget=5000", *args], capture_output=True, text=True, timeout=120)


def _pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB triples of an 8-bit RGB or RGBA PNG (what Chromium writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, data, head = 8, b"", b""
    while at < len(png):
        size, kind = struct.unpack(">I4s", png[at:at + 8])
        chunk = png[at + 8:at + 8 + size]
        head, data = (chunk, data) if kind == b"IHDR" else (head, data + chunk if kind == b"IDAT" else data)
        at += 12 + size
    width, height, depth, colour = struct.unpack(">IIBB", head[:10])
    assert depth == 8 and colour in (2, 6)
    step = 3 if colour == 2 else 4
    raw, rows, prev = zlib.decompress(data), [], bytearray(width * step)
    for y in range(height):
        line = raw[y * (width * step + 1):(y + 1) * (width * step + 1)]
        rows.append(prev := _unfilter(line[0], bytearray(line[1:]), prev, step))
    return width, height, [bytes(b for x in range(width) for b in row[x * step:x * step + 3]) for row in rows]


def _unfilter(kind: int, cur: bytearray, prev: bytearray, step: int) -> bytearray:
    for i in range(len(cur)):
        a = cur[i - step] if i >= step else 0
        b, c = prev[i], (prev[i - step] if i >= step else 0)
        if kind == 1:
            cur[i] = (cur[i] + a) & 0xFF
        elif kind == 2:
            cur[i] = (cur[i] + b) & 0xFF
        elif kind == 3:
            cur[i] = (cur[i] + (a + b) // 2) & 0xFF
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    return cur


def _dominant(rows: list[bytes], box: list[float]) -> tuple[int, ...]:
    """The commonest colour inside a cell's box (its background; the text is a minority)."""
    left, top, width, height = (int(v) for v in box[:4])
    seen: Counter[tuple[int, ...]] = Counter()
    for y in range(top + 4, top + height - 4):
        row = rows[y]
        seen.update(tuple(row[x * 3:x * 3 + 3]) for x in range(left + 4, left + width - 4))
    return seen.most_common(1)[0][0]


def _count(rows: list[bytes], left: int, colour: tuple[int, int, int]) -> int:
    """Pixels of ``colour`` right of ``left``."""
    wanted = bytes(colour)
    return sum(1 for row in rows for x in range(left, len(row) // 3) if row[x * 3:x * 3 + 3] == wanted)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if BROWSER is None:  # before the run: nothing to open it with
        pytest.skip("no headless Chromium (Debian: apt-get install chromium)")
    suite = tmp_path_factory.mktemp("suite")
    for name, text in SUITE.items():
        (suite / name).write_text(text)
    out = suite / "reports"
    got = harness_main("run", str(suite), "--no-pins", "--no-rejections", "-q", "--out", str(out))
    assert got.returncode == 1, got.stderr  # the undeclared divergence and the errors fail it
    return (out / "latest" / "differential.html").resolve()


@pytest.mark.expensive
def test_a_clicked_cell_opens_its_diff_and_bodies_and_the_screenshot_shows_verdict_colours(page: Path) -> None:
    probed = page.with_name("probed.html")
    probed.write_text(page.read_text().replace("</body>", _PROBE + "</body>"))
    done = _chromium("--dump-dom", probed.as_uri())
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found is not None, f"the probe never ran: {done.stderr[-2000:]}"
    seen: dict[str, Any] = json.loads(found.group(1).replace("&lt;", "<").replace("&gt;", ">")
                                      .replace("&quot;", '"').replace("&amp;", "&"))
    fails = " (fails the run)"
    assert sorted(seen["cells"]) == ["declared on plain: identical", "declared on strict: intended",
                                     f"raises on plain: error{fails}", f"raises on strict: error{fails}",
                                     "undeclared on plain: identical", f"undeclared on strict: unexpected{fails}"]
    assert seen["hiddenBefore"] is True and seen["hiddenAfter"] is False and seen["hash"].startswith("#u=")
    assert seen["heading"] == "undeclared on strict: unexpected (FAILS the run)"
    assert seen["diff"].startswith("--- old\n+++ new\n@@ ")
    assert '-      }\n+      },\n+      "strict": true\n' in seen["diff"]
    assert json.loads(seen["old"])["tools"][0] == {"name": "a", "description": "d", "input_schema": {"type": "object"}}
    assert json.loads(seen["new"])["tools"][0]["strict"] is True
    # the same cell opened by its address, photographed: the layout the probe measured, in colour
    shot = page.with_name("shot.png")
    _chromium(f"--screenshot={shot}", page.as_uri() + seen["hash"])
    width, height, rows = _pixels(shot.read_bytes())
    assert (width, height) == WINDOW
    panel_left = int(WINDOW[0] * 0.38)  # the panel covers the right 62% of the window
    for title, box in seen["cells"].items():
        assert box[0] + box[2] < panel_left, f"{title} lies under the panel: {box}"
        verdict = title.split(": ", 1)[1].split(" ")[0]
        assert _dominant(rows, box) == COLOURS[verdict], title
    assert _count(rows, panel_left, REMOVED) > 200  # the closing brace that gained a comma, in red
    assert _count(rows, panel_left, ADDED) > 400  # it and the added "strict": true line, in green
