"""The workers' prints: echoed line by line through the redactor, and the echo ends with the
build even when a process a pipeline started still holds the pipe open."""

from __future__ import annotations

import os
import subprocess

import pytest

from harness._differential.echo import Echo

KEY = "sk-ant-api03-" + "A1b2C3d4" * 10  # the shape of an Anthropic key, never a real one


def test_every_line_written_before_close_is_echoed_redacted_and_a_last_line_without_newline_too(
        capsys: pytest.CaptureFixture[str]) -> None:
    echo = Echo()
    os.write(echo.write_fd, b"first line\n")
    os.write(echo.write_fd, f"the key {KEY} in a print\nno newline at the end".encode())
    echo.close()
    assert not echo.thread.is_alive()
    err = capsys.readouterr().err
    assert err.startswith("first line\nthe key ") and err.endswith("in a print\nno newline at the end")
    assert KEY not in err


def test_close_does_not_wait_for_a_process_that_still_holds_the_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    echo = Echo()
    holder = subprocess.Popen(["sleep", "30"], stdout=echo.write_fd)  # as a server a pipeline left running
    try:
        os.write(echo.write_fd, b"printed before the build ended\n")
        echo.close()
        assert not echo.thread.is_alive()
        assert holder.poll() is None  # still running, the pipe still open: the echo did not wait for it
    finally:
        holder.kill()
        holder.wait()
    assert capsys.readouterr().err == "printed before the build ended\n"

