"""The run folder's evidence stays bounded: bodies over a cap are left out and the index says why."""

from __future__ import annotations

import json
from pathlib import Path

from harness._evidence import Limits, ObservationStore, load_observations
from harness._model import ErrorInfo, Observation


def _obs(case: str, side: str, body: bytes) -> Observation:
    return Observation(case, "lane", side, "ok", wire=body)  # type: ignore[arg-type]


def _index(folder: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (folder / "observations.jsonl").read_text().splitlines()]


def test_a_body_over_the_per_body_cap_is_not_saved_and_its_index_line_says_why(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path, limits=Limits(body_bytes=10, run_bytes=1000))
    assert store.put(_obs("small", "new", b'{"a":1}')) is not None
    saved = store.save(_obs("big", "new", b'{"a":"' + b"x" * 50 + b'"}'))
    store.close()
    small, big = _index(tmp_path)
    assert small["body"] and "omitted" not in small
    assert big["body"] is None
    assert big["omitted"]["bytes"] == 58 and "per-body cap of 10" in big["omitted"]["why"]
    assert saved.digest is None and saved.omitted == big["omitted"]["why"]
    assert store.summary()["omitted"] == 1 and store.summary()["bodies"] == 1


def test_once_the_run_cap_is_reached_later_bodies_are_left_out_but_known_ones_still_link(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path, limits=Limits(body_bytes=100, run_bytes=20))
    first = store.put(_obs("a", "old", b'{"k":"0123456789"}'))  # 18 bytes: fits
    again = store.put(_obs("a", "new", b'{"k":"0123456789"}'))  # the same bytes: already saved
    late = store.put(_obs("b", "new", b'{"k":"abc"}'))          # 11 more would pass 20
    store.close()
    assert first is not None and again == first and late is None
    assert "reached its cap of 20" in _index(tmp_path)[2]["omitted"]["why"]
    assert store.summary()["bytes"] == 18


def test_a_store_without_limits_keeps_every_body_and_reads_back_exactly(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path)
    body = b'{"x":"' + b"y" * 100_000 + b'"}'
    store.put(_obs("a", "new", body))
    store.close()
    assert load_observations(tmp_path)[("a", "lane", "new")].wire == body


def test_a_scrubbing_store_writes_scrubbed_bodies_and_errors_and_reads_them_back(tmp_path: Path) -> None:
    store = ObservationStore(tmp_path, scrub=lambda text: text.replace("sekrit", "[gone]"))
    raised = Observation("c", "lane", "old", "error", error=ErrorInfo("KeyError", "sekrit key", "p.py:3"),
                         duration_s=0.25)
    store.save(raised)
    store.save(_obs("c", "new", b'{"key":"sekrit"}'))
    store.close()
    with (tmp_path / "observations.jsonl").open("a") as index:
        index.write("\n")  # a blank line is skipped
    got = load_observations(tmp_path)
    assert got[("c", "lane", "new")].wire == b'{"key":"[gone]"}'
    old = got[("c", "lane", "old")]
    assert (old.wire, old.outcome, old.duration_s) == (None, "error", 0.25)
    assert old.error == ErrorInfo("KeyError", "[gone] key", "p.py:3")
    assert load_observations(tmp_path / "elsewhere") == {}
