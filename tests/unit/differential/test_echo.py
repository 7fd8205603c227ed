"""The workers' prints: echoed line by line through the redactor, and the echo ends with the
build even when a process a pipeline started still holds the pipe open."""

from __future__ import annotations

import os
import subprocess
import time

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



def test_close_stops_however_much_a_process_left_holding_the_pipe_goes_on_writing() -> None:
    lines: list[bytes] = []
    echo = Echo(out=lines.append)
    os.write(echo.write_fd, b"printed before the build ended\n")
    writer = subprocess.Popen(["sh", "-c", "while :; do echo spam; done"], stdout=echo.write_fd)
    try:
        deadline = time.monotonic() + 10
        while b"spam\n" not in lines:  # it is writing
            assert time.monotonic() < deadline, "the writer's lines never arrived"
            time.sleep(0.01)
        echo.close()
        assert not echo.thread.is_alive()
    finally:
        writer.kill()
        writer.wait()
    assert lines[0] == b"printed before the build ended\n" and set(lines[1:]) == {b"spam\n"}


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the failure planted below
def test_close_after_the_echo_itself_failed_raises_nothing_and_closes_its_pipes() -> None:
    def broken(line: bytes) -> None:
        raise RuntimeError("the echo's own bug")

    echo = Echo(out=broken)
    os.write(echo.write_fd, b"a line\n")
    echo.thread.join(timeout=5)  # the pump died on the line
    assert not echo.thread.is_alive()
    echo.close()
    with pytest.raises(OSError):
        os.fstat(echo.write_fd)


def test_a_line_split_across_many_reads_arrives_whole() -> None:
    lines: list[bytes] = []
    echo = Echo(out=lines.append)
    long = b"x" * (1 << 20)  # sixteen of the pump's reads
    writer = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=echo.write_fd)
    writer.communicate(long + b"\nshort\n")
    echo.close()
    assert lines == [long + b"\n", b"short\n"]
