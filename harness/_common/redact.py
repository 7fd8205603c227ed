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
from re import _constants as _sre  # type: ignore[attr-defined]  # the stdlib's parsed-pattern codes
from re import _parser  # type: ignore[attr-defined]
from typing import Any, TextIO, cast

from harness._common.sanitize import clean_text, walk_strings
from harness._common.secrets import KEY_SHAPES, SECRET_HEADERS, encoded_forms, env_secrets

__all__ = ["RedactingWriter", "Redactor", "needles", "redact_text", "redacting_output", "redactor"]

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


Needles = tuple[tuple[str, ...], bool]
"""Texts at least one of which any match of a pattern contains, and whether to look for them in
the lower-cased text (a case-insensitive pattern)."""


def _lead(items: Any) -> str:
    """The literal text a parsed sequence opens with ("" when it opens otherwise)."""
    out = ""
    for op, arg in items:
        if op is not _sre.LITERAL:
            break
        out += chr(arg)
    return out


def _candidates(items: Any) -> Iterator[tuple[str, ...]]:
    """Sets of texts of which every match of the parsed sequence ``items`` contains one: each run
    of literals, a branch whose every alternative opens with literals (with the run before it),
    and the same inside a plain group. Optional and repeated parts are passed over."""
    run = ""
    for op, arg in items:
        if op is _sre.LITERAL:
            run += chr(arg)
            continue
        if run:
            yield (run,)
        if op is _sre.BRANCH:
            heads = [_lead(alt) for alt in arg[1]]
            if all(heads):
                yield tuple(run + head for head in heads)
        elif op is _sre.SUBPATTERN and not arg[1] and not arg[2]:  # a group that sets no flags of its own
            yield from _candidates(arg[3])
        run = ""
    if run:
        yield (run,)


def needles(pattern: str) -> Needles | None:
    """What a text must contain for ``pattern`` to match in it, read from the pattern itself (so
    a pattern changed in ``harness._common.secrets`` keeps a sound filter); None when no literal
    text is certain to be in every match."""
    try:
        parsed = _parser.parse(pattern)
    except Exception:  # an unreadable pattern just runs unfiltered
        return None
    best = max(_candidates(list(parsed)), key=lambda found: min(map(len, found)), default=None)
    if best is None:
        return None
    fold = bool(parsed.state.flags & re.IGNORECASE)
    return (tuple(n.lower() for n in best) if fold else best), fold


def _absent(found: Needles | None, value: str, lowered: list[str]) -> bool:
    """Whether ``value`` surely holds no match: none of the needles is in it. A case-insensitive
    pattern is only filtered on ASCII text (``re.IGNORECASE`` matches ``ſ`` for ``s``, which
    lower-casing does not)."""
    if found is None:
        return False
    texts, fold = found
    if fold:
        if not value.isascii():
            return False
        if not lowered:
            lowered.append(value.lower())
        value = lowered[0]
    return not any(text in value for text in texts)


class Redactor:
    """Replaces credentials in strings and sanitizes them; ``value`` walks a JSON value."""

    def __init__(self, secrets: Iterable[str]) -> None:
        literals = sorted({form for s in secrets if s for form in encoded_forms(s)}, key=len, reverse=True)
        self._literals = re.compile("|".join(map(re.escape, literals))) if literals else None
        # each pattern with the texts a match must contain: most bodies hold none of them, and
        # a substring test costs a fraction of a regex scan (the scans were 70 us a small body)
        self._plain = [(kind, re.compile(rx), needles(rx)) for kind, rx in _TEXT_PATTERNS]
        self._labelled = [(kind, re.compile(rx), needles(rx)) for kind, rx in _LABELLED]
        self._memo: dict[str, str] = {}

    def redact(self, value: str) -> str:
        """``value`` with every credential replaced and nothing else changed, not memoised: for
        bytes kept as evidence (a wire body stays the JSON it was)."""
        return self._redact(value)

    def _redact(self, value: str) -> str:
        if self._literals is not None:
            value = self._literals.sub("[REDACTED:environment-credential]", value)
        lowered: list[str] = []  # the lower-cased value, made once when a filter needs it
        for kinds, template in ((self._plain, "[REDACTED:{}]"), (self._labelled, r"\1[REDACTED:{}]")):
            for kind, rx, found in kinds:
                if _absent(found, value, lowered):
                    continue
                value, count = rx.subn(template.format(kind), value)
                if count:
                    lowered.clear()
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
