"""Whatever a command prints passes one redacting writer, put in front of stdout and stderr by the
`harness` group itself: a command written tomorrow, printing with print(), click.echo or rich,
cannot leak a key shape or a credential variable's value to the terminal or the CI log."""

from __future__ import annotations

import io
import os
import sys

import click
import pytest
from click.testing import CliRunner
from rich.console import Console

from harness._cli.main import _Group
from harness._common.redact import RedactingWriter, Redactor, redacting_output

KEY = "sk-proj-" + "Q7wE9rT2" * 4  # an OpenAI-style key shape
PASSWORD = "hunter2-but-longer"  # the value of DB_PASS in these tests


def _group() -> click.Group:
    @click.group(cls=_Group)
    @click.option("--debug", is_flag=True)
    def group(debug: bool) -> None:
        """A group like `harness`, with one command that prints secrets every way it can."""

    @group.command("leak")
    def leak() -> None:
        print("print:", KEY)
        print("Bearer", "abcdefghijklmnopqrstuvwxyz")  # the label and the token in separate writes
        click.echo(f"echo: password={os.environ['DB_PASS']}")
        click.echo(f"err: {KEY}", err=True)
        Console(stderr=True).print(f"rich: {KEY}", markup=False)
        sys.stdout.write(f"unfinished line {PASSWORD}")  # no newline: written at the end, redacted

    return group


def test_a_command_that_never_redacts_still_prints_nothing_secret() -> None:
    got = CliRunner().invoke(_group(), ["leak"], env={"DB_PASS": PASSWORD})
    assert got.exit_code == 0, got.output
    for text in (got.stdout, got.stderr):
        assert KEY not in text and PASSWORD not in text and "abcdefghijklmnop" not in text
    assert got.stdout.splitlines() == [
        "print: [REDACTED:openai-style-key]", "Bearer [REDACTED:bearer-token]",
        "echo: password=[REDACTED:environment-credential]", "unfinished line [REDACTED:environment-credential]"]
    assert got.stderr.splitlines() == ["err: [REDACTED:openai-style-key]", "rich: [REDACTED:openai-style-key]"]


def test_the_credentials_are_read_when_the_command_starts_not_when_the_process_first_redacted() -> None:
    CliRunner().invoke(_group(), ["leak"], env={"DB_PASS": "first-password-value"})
    got = CliRunner().invoke(_group(), ["leak"], env={"DB_PASS": PASSWORD})
    assert PASSWORD not in got.stdout and "[REDACTED:environment-credential]" in got.stdout


def test_the_writer_keeps_a_line_until_it_ends_so_a_key_written_in_pieces_is_still_one_match() -> None:
    out = io.StringIO()
    writer = RedactingWriter(out, Redactor([]))
    for piece in ("key: sk-proj-", "Q7wE9rT2" * 2, "Q7wE9rT2" * 2, "\nnext"):
        writer.write(piece)
    assert out.getvalue() == "key: [REDACTED:openai-style-key]\n"
    writer.flush()
    assert out.getvalue().endswith("next")


def test_the_writer_passes_terminal_escapes_a_progress_bar_needs_and_refuses_bytes() -> None:
    out = io.StringIO()
    writer = RedactingWriter(out, Redactor([]))
    writer.write("\r\x1b[2Kbuilding 3/10")
    writer.flush()
    assert out.getvalue() == "\r\x1b[2Kbuilding 3/10"
    with pytest.raises(TypeError):
        writer.write(b"")  # type: ignore[arg-type]  # click probes streams this way
    with pytest.raises(AttributeError):
        writer.buffer  # noqa: B018  # nothing may write the bytes underneath around the redaction


def test_redacting_output_restores_the_streams_and_does_not_wrap_twice() -> None:
    before = sys.stdout, sys.stderr
    with redacting_output():
        inner = sys.stdout
        assert isinstance(inner, RedactingWriter)
        with redacting_output():
            assert sys.stdout is inner
    assert (sys.stdout, sys.stderr) == before


def test_a_fork_while_another_thread_holds_the_writer_neither_waits_nor_deadlocks_the_child() -> None:
    import threading

    out = io.StringIO()
    writer = RedactingWriter(out, Redactor([]))
    writer.write("the parent's unfinished line")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with writer._lock:
            held.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(10)
    pid = os.fork()  # the lock is held by the other thread: the fork neither waits for it nor inherits it held
    if pid == 0:
        writer.write("in the child\n")  # would block forever on the inherited lock
        os._exit(0 if out.getvalue() == "in the child\n" else 3)  # the parent's line is the parent's to write
    release.set()
    thread.join()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    writer.flush()
    assert out.getvalue() == "the parent's unfinished line"


def test_the_debug_traceback_the_interpreter_prints_is_redacted_too(capsys: pytest.CaptureFixture[str]) -> None:
    from harness._cli.main import _redacted_traceback

    try:
        raise RuntimeError(f"upstream said 401 for {KEY}")
    except RuntimeError as exc:
        _redacted_traceback(type(exc), exc, exc.__traceback__)
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and KEY not in err
    assert "RuntimeError: upstream said 401 for [REDACTED:openai-style-key]" in err
