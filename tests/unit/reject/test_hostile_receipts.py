"""`harness cassettes build --receipts FILE` with a receipts file that is not UTF-8 or holds a line
nested past Python's recursion limit: one InputError naming the file, never exit 70. Found by
fuzzing the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness._errors import InputError
from harness._reject.build import load_receipts


@pytest.mark.parametrize("data", [b"\x00\xff\xfe\n", b"[" * 100_000 + b"]" * 100_000 + b"\n"],
                         ids=["not-utf8", "nested-too-deep"])
def test_an_unreadable_receipts_file_is_one_input_error_naming_it(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "receipts.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError, match="receipts"):
        load_receipts(path)
