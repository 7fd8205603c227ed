"""`harness merge` over shard folders that are corrupt, hand-edited or from another version: one
ConfigError naming the folder and the file, never an internal error (exit 70). Found by fuzzing the
CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness._errors import ConfigError
from harness._mutate.shards import merge

PLAN = json.dumps({"mutants": [], "shard": [1, 1]})
BASELINE = json.dumps({"outcomes": {}})


def _shard(folder: Path, **files: str | bytes) -> Path:
    folder.mkdir()
    for name, text in {"plan.json": PLAN, "baseline.json": BASELINE, **files}.items():
        path = folder / name.replace("_", ".")
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return folder


@pytest.mark.parametrize("files", [
    {"plan.json": "{}"}, {"plan.json": "[]"}, {"plan.json": "null"}, {"plan.json": "[" * 100_000 + "]" * 100_000},
    {"baseline.json": "{}"}, {"baseline.json": json.dumps({"outcomes": "x"})},
    {"sandbox.json": ""}, {"sandbox.json": "[]"}, {"results.jsonl": b"\x00\xff\xfe"},
], ids=["plan-empty-object", "plan-array", "plan-null", "plan-deep", "baseline-no-outcomes",
        "baseline-outcomes-string", "sandbox-empty", "sandbox-array", "results-not-utf8"])
def test_a_corrupt_shard_file_is_one_config_error_naming_the_shard(
        tmp_path: Path, files: dict[str, str | bytes]) -> None:
    shard = _shard(tmp_path / "shard", **{k.replace(".", "_"): v for k, v in files.items()})
    with pytest.raises(ConfigError, match="shard"):
        merge([shard], tmp_path / "out")
