"""What a failed protocol-check line quotes of a program (its last line, its stderr) is redacted
whole before it is cut: a cut never leaves part of a key showing where the whole key would have
been redacted."""

from __future__ import annotations

import time

from harness._pipeline.conformance import _Program, quoted

KEY = "sk-proj-" + "Q7wE9rT2" * 4


def test_a_key_cut_by_the_quotes_length_is_still_redacted() -> None:
    line = ("x" * 150 + " " + KEY + " " + "y" * 1000).encode()
    shown = quoted(line)
    assert "Q7wE9rT2" not in shown and shown.startswith("x" * 150 + " [REDACTED")
    assert shown.endswith("... (1,192 bytes in all)")


def _tail_once(script: str, seen: bytes) -> str:
    """The stderr tail of a program running ``script``, once its stderr holds ``seen``."""
    program = _Program(["sh", "-c", script], None)
    try:
        deadline = time.monotonic() + 10
        while seen not in program.stderr and time.monotonic() < deadline:
            time.sleep(0.02)
        return program.tail()
    finally:
        program.kill()


def test_the_stderr_tail_is_redacted_before_its_front_is_cut() -> None:
    # one stderr line: 200 characters, the key, 280 more: the last 300 start inside the key
    tail = _tail_once(f"printf '%s\\n' '{'a' * 200} {KEY} {'b' * 280}' >&2; sleep 30", b"\n")
    assert "Q7wE9rT2" not in tail and "openai-style-key]" in tail  # the cut falls in the marker, not the key


def test_a_stderr_line_whose_start_was_dropped_is_not_shown() -> None:
    tail = _tail_once(f"printf '%s' '{KEY}{'c' * 5000}' >&2; printf '\\nlast words\\n' >&2; sleep 30", b"last words")
    assert tail == "; stderr ends: last words"
