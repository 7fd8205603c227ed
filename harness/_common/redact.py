"""Redact credentials from everything a run writes or prints.

A pipeline can put a key in its output or in an exception message ("401 from upstream;
headers={'x-api-key': 'sk-ant-...'}"), and report.md is meant to be pasted into a pull request.
So every string of a report passes through here before it is written: provider key shapes,
bearer and basic tokens, credential headers and query parameters, JWTs, private keys (the
patterns of ``harness._common.secrets``), and the values of credential-like environment
variables in each encoded form (raw, JSON, URL, hex, base64). A redaction names the kind, never
any part of the secret. Every string is then sanitized (``harness._common.sanitize``): what is
safe to write is also safe to show on a terminal or put in junit.xml.

Reports repeat strings (case ids, lane ids, rule names), so each distinct string is redacted
once per process; ``redact_text`` is the one call for any other text leaving a run (a
pipeline's captured stdout and stderr, a log line). ``redacting_output`` puts a ``RedactingWriter``
in front of ``sys.stdout`` and ``sys.stderr`` for the length of a command (``harness._cli.main``
does it for every command), so whatever a command prints is redacted even where its author forgot.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import weakref
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any, TextIO, cast

from harness._common.sanitize import clean_text, walk_strings
from harness._common.secrets import KEY_SHAPES, SECRET_HEADERS, encoded_forms, env_secrets

__all__ = ["RedactingWriter", "Redactor", "redact_text", "redacting_output", "redactor"]

_CACHE_LIMIT = 16_384  # distinct strings remembered; past it the memo starts over (a run's memory stays flat)
_MEMO_MAX_CHARS = 4096  # at most ~800 MB of memo in the worst case, far less in practice

# The key shapes the cassette scanner knows, plus a private key's whole body (the scanner only
# needs its header to refuse a file; a report must lose the key itself).
_TEXT_PATTERNS: tuple[tuple[str, str], ...] = (
    *KEY_SHAPES,
    ("private-key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
)
# Keep the label, drop the value: "Bearer abc..." -> "Bearer [REDACTED:bearer-token]".
_LABELLED: tuple[tuple[str, str], ...] = (
    ("bearer-token", r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{12,}"),
    ("basic-auth", r"(?i)(\bbasic\s+)[A-Za-z0-9+/=]{12,}"),
    ("credential-query", r"([?&](?:key|api_key|apikey|access_token|token)=)[^&\s'\"]{6,}"),
    ("url-userinfo", r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@'\"]+:[^/\s@'\"]+(?=@)"),
    ("credential-header", r"(?i)(['\"]?(?:" + "|".join(re.escape(h) for h in SECRET_HEADERS)
     + r")['\"]?\s*[:=]\s*['\"]?)[^'\"\s,;}]{6,}"),
)


# Text each pattern cannot match without (in the lower-cased text for the case-blind ones): a
# pattern whose anchors are all absent is not run. Scanning 10 MB of report JSON with every
# pattern took 15 s; the substring tests take milliseconds. A kind without an entry always runs.
_ANCHORS: dict[str, tuple[str, ...]] = {
    "anthropic-key": ("sk-ant-",), "openai-style-key": ("sk-",), "google-api-key": ("AIza",),
    "aws-access-key": ("AKIA", "ASIA"), "groq-key": ("gsk_",), "xai-key": ("xai-",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), "slack-token": ("xox",),
    "huggingface-token": ("hf_",), "jwt": ("eyJ",), "private-key": ("-----BEGIN ",),
    "credential-query": ("key=", "token="), "url-userinfo": ("://",),
}
_CASE_BLIND_ANCHORS: dict[str, tuple[str, ...]] = {
    "bearer-token": ("bearer",), "basic-auth": ("basic",), "credential-header": SECRET_HEADERS,
}


def _may_match(kind: str, value: str, low: str | None) -> bool:
    """Whether pattern ``kind`` can match ``value`` (``low``: it lower-cased, None when it is not
    ASCII, where case-blind matching has more equivalents than ``lower`` gives)."""
    if kind in _CASE_BLIND_ANCHORS:
        return low is None or any(anchor in low for anchor in _CASE_BLIND_ANCHORS[kind])
    anchors = _ANCHORS.get(kind)
    return anchors is None or any(anchor in value for anchor in anchors)


class Redactor:
    """Replaces credentials in strings and sanitizes them; ``value`` walks a JSON value."""

    def __init__(self, secrets: Iterable[str]) -> None:
        literals = sorted({form for s in secrets if s for form in encoded_forms(s)}, key=len, reverse=True)
        self._literals = re.compile("|".join(map(re.escape, literals))) if literals else None
        self._plain = [(kind, re.compile(rx)) for kind, rx in _TEXT_PATTERNS]
        self._labelled = [(kind, re.compile(rx)) for kind, rx in _LABELLED]
        self._memo: dict[str, str] = {}

    def redact(self, value: str) -> str:
        """``value`` with every credential replaced and nothing else changed, not memoised: for
        bytes kept as evidence (a wire body stays the JSON it was)."""
        return self._redact(value)

    def _redact(self, value: str) -> str:
        if self._literals is not None:
            value = self._literals.sub("[REDACTED:environment-credential]", value)
        low = value.lower() if value.isascii() else None
        for kind, rx in self._plain:
            if _may_match(kind, value, low):
                value = rx.sub(f"[REDACTED:{kind}]", value)
        for kind, rx in self._labelled:
            if _may_match(kind, value, low):
                value = rx.sub(rf"\1[REDACTED:{kind}]", value)
        return value

    def text(self, value: str) -> str:
        """``value`` with every credential replaced, then sanitized for files and terminals."""
        if len(value) > _MEMO_MAX_CHARS:  # long texts are rarely repeated: memoising them only costs memory
            return clean_text(self._redact(value))
        done = self._memo.get(value)
        if done is None:
            if len(self._memo) >= _CACHE_LIMIT:
                self._memo.clear()
            done = self._memo[value] = clean_text(self._redact(value))
        return done

    def value(self, value: Any) -> Any:
        """A copy of a JSON value with every string (keys too) redacted and sanitized, walked
        without recursion; containers nested past ``sanitize.MAX_DEPTH`` become a note."""
        return walk_strings(value, self.text)


@cache
def redactor() -> Redactor:
    """The redactor for this process: the patterns plus this environment's credential values."""
    return Redactor(env_secrets())


def redact_text(text: str) -> str:
    """Any text about to leave a run (captured pipeline output, a log line): credentials
    replaced by ``[REDACTED:kind]``, control characters escaped, lone surrogates replaced."""
    return redactor().text(text)


_PENDING_MAX = 1 << 16  # a line longer than this without a newline is written in pieces


class RedactingWriter:
    """A text stream in front of another: what is written reaches it redacted (not sanitized: a
    progress bar's own escapes must pass). Whole lines are redacted, so a credential printed in
    several writes (``print("Bearer", token)``) is still one match; an unfinished line is held
    until its newline, a flush, or ``_PENDING_MAX`` characters. Anything else (``isatty``,
    ``fileno``, ``encoding``) is the stream's own, except ``buffer``: without it, nothing (click
    on an ASCII locale) can reach the bytes underneath and write around the redaction."""

    def __init__(self, stream: TextIO, redact: Redactor) -> None:
        self.stream = stream
        self._redact = redact.redact
        self._pending = ""
        self._lock = threading.RLock()
        _WRITERS.add(self)

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # click probes a stream with b"": it must look like text only
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self._lock:
            self._pending += text
            cut = self._pending.rfind("\n") + 1
            if not cut and len(self._pending) > _PENDING_MAX:
                cut = len(self._pending)
            if cut:
                done, self._pending = self._pending[:cut], self._pending[cut:]
                self.stream.write(self._redact(done))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        with self._lock:
            if self._pending:
                done, self._pending = self._pending, ""
                self.stream.write(self._redact(done))
            self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self.stream, name)


_WRITERS: weakref.WeakSet[RedactingWriter] = weakref.WeakSet()


def _flush_writers() -> None:
    """Before a fork: what a writer holds written first (best effort: a writer another thread is
    using is left to it, never waited for)."""
    for writer in list(_WRITERS):
        if writer._lock.acquire(blocking=False):
            try:
                with contextlib.suppress(Exception):
                    writer.flush()
            finally:
                writer._lock.release()


def _fresh_state() -> None:
    """In a forked child: a lock another thread of the parent held at the fork would never be
    released here, and an unfinished line is the parent's to write, not the child's too."""
    for writer in list(_WRITERS):
        writer._lock = threading.RLock()
        writer._pending = ""


os.register_at_fork(before=_flush_writers, after_in_child=_fresh_state)


@contextlib.contextmanager
def redacting_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` redacted until the block ends (nested: once). The
    redactor is made again from this environment first: a command reads its credentials when it
    starts, not when the process first redacted something."""
    if isinstance(sys.stdout, RedactingWriter) and isinstance(sys.stderr, RedactingWriter):
        yield
        return
    redactor.cache_clear()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (cast(TextIO, RedactingWriter(stream, redactor())) for stream in saved)
    try:
        yield
    finally:
        for writer in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                writer.flush()
        sys.stdout, sys.stderr = saved
