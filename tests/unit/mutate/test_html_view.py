"""The matrix page: escapes first (a section of their own and the first rows), the filters and the
data they read, one row per mutant and per pin rather than a mutants x pins grid."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

from harness._mutate.html_view import render_html
from harness._mutate.results import build_section, expand

PINS = [f"s/c.cases.yaml::case{i}[lane]::pin" for i in range(40)]


def _section(n: int = 60) -> dict[str, Any]:
    metas, rows = [], {}
    for i in range(n):
        key = f"k{i}"
        metas.append({"key": key, "id": f"mut{i:03d}", "kind": "operator", "file": f"pkg/f{i % 3}.py", "module": "m",
                      "function": "f", "line": i + 1, "column": 1, "end_line": i + 1, "end_column": 2,
                      "operator": "Op", "title": f"t{i} <b>", "diff": f"-a{i}\n+b{i}\n", "claims": [],
                      "equivalent": None})
        # every 7th mutant escapes (all green), every 11th reaches no pin; the rest are killed by pin i%40
        pins = {} if i % 11 == 5 else {p: "passed" for p in PINS[:10]}
        if i % 7 != 3 and i % 11 != 5:
            pins[PINS[i % 40]] = "failed"
        rows[key] = {"key": key, "pins": pins, "details": {}}
    plan = {"selected": list(rows), "mutants": metas, "suite_prefix": "", "suite_name": "suite <x>",
            "threshold": {}, "shard": None}
    return build_section(plan, {"pins": PINS, "outcomes": dict.fromkeys(PINS, "passed")}, rows)


class _Rows(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.table: str | None = None
        self.rows: dict[str, list[dict[str, str | None]]] = {"mutants": [], "pins": []}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self.table = found.get("id")
        elif tag == "tr" and self.table and "data-i" in found:
            self.rows[self.table].append(found)


def _parse(page: str) -> _Rows:
    parser = _Rows()
    parser.feed(page)
    return parser


def test_escapes_come_first_in_their_own_section_and_at_the_top_of_the_table() -> None:
    section = expand(_section())
    page = render_html(section)
    escaped = [m["id"] for m in section["mutants"] if m["status"] in ("survived", "no_coverage")]
    assert escaped and page.index("<h2>Escapes") < page.index("<h2>Mutants")
    for mid in escaped:
        assert f'id="escape-{mid}"' in page
    statuses = [r["data-status"] for r in _parse(page).rows["mutants"]]
    assert statuses == sorted(statuses, key=["survived", "no_coverage", "killed"].index)
    assert len(statuses) == 60


def test_every_mutant_and_every_pin_gets_one_row_not_a_cell_per_pair() -> None:
    page = render_html(_section())
    rows = _parse(page).rows
    assert len(rows["mutants"]) == 60 and len(rows["pins"]) == 40
    assert page.count("<td") < 60 * 8 + 40 * 5  # a grid would hold 60 x 40 cells


def test_the_filters_offer_every_status_file_and_pin() -> None:
    page = render_html(_section())
    status = re.search(r'<select id="f-status">(.*?)</select>', page, re.S)
    assert status is not None
    assert re.findall(r'value="(\w*)"', status.group(1)) == ["", "escaped", "survived", "no_coverage", "killed"]
    assert all(f'<option value="pkg/f{i}.py">' in page for i in range(3))
    assert all(f'<option value="{p}">' in page for p in PINS)


def test_the_embedded_data_gives_each_mutants_red_and_covering_pins() -> None:
    compact = _section()
    full = expand(compact)
    for page in (render_html(compact), render_html(full)):
        raw = re.search(r'<script id="matrix-data" type="application/json">(.*?)</script>', page, re.S)
        assert raw is not None
        data = json.loads(raw.group(1))
        assert data["pins"] == PINS
        for m, d in zip(full["mutants"], data["mutants"], strict=True):
            assert [PINS[i] for i in d["k"]] == m["killed_by"]
            assert [PINS[i] for i in data["sets"][d["c"]]] == m["covered_by"]


def test_text_from_the_section_is_escaped() -> None:
    page = render_html(_section())
    assert "t1 &lt;b&gt;" in page and "t1 <b>" not in page
    assert "suite &lt;x&gt;" in page


def test_a_pin_on_several_lanes_is_one_pin_row_and_one_filter_entry() -> None:
    items = ["s/c.cases.yaml::case[one]::pin", "s/c.cases.yaml::case[two]::pin"]
    metas = [{"key": f"k{i}", "id": f"m{i}", "kind": "operator", "file": "f.py", "module": "m", "function": "f",
              "line": i + 1, "column": 1, "end_line": i + 1, "end_column": 2, "operator": "Op", "title": "t",
              "diff": "", "claims": [], "equivalent": None} for i in range(2)]
    rows = {"k0": {"key": "k0", "pins": {items[0]: "passed", items[1]: "failed"}, "details": {}},
            "k1": {"key": "k1", "pins": {items[0]: "passed"}, "details": {}}}
    plan = {"selected": ["k0", "k1"], "mutants": metas, "suite_prefix": "", "suite_name": "g", "threshold": {},
            "shard": None}
    page = render_html(build_section(plan, {"pins": items, "outcomes": dict.fromkeys(items, "passed")}, rows))
    group = "s/c.cases.yaml::case::pin"
    (row,) = _parse(page).rows["pins"]
    assert row["data-pin"] == group and "(2 items)" in page
    raw = re.search(r'<script id="matrix-data" type="application/json">(.*?)</script>', page, re.S)
    assert raw is not None and json.loads(raw.group(1))["groups"] == [[group, [0, 1]]]
    assert f'<option value="{group}">' in page and f'<option value="{items[0]}">' not in page
