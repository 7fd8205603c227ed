"""A SIGTERM or Ctrl-C whose exception Python swallowed (raised inside an at-fork hook or a
``__del__``: "Exception ignored in ...") is not lost: ``raise_unheard`` raises it again, which
``harness run`` does once the build is over, instead of waiting on its pins."""

from __future__ import annotations

import gc
import os
import signal

import pytest

from harness._common import supervise
from harness._common.supervise import Terminated


class _SignalledWhileCollected:
    """Sends ``signum`` to this process from inside ``__del__``, where Python only prints an
    exception."""

    def __init__(self, signum: int) -> None:
        self.signum = signum

    def __del__(self) -> None:
        os.kill(os.getpid(), self.signum)
        for _ in range(10_000):  # the handler runs at a bytecode boundary in here
            pass


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the swallowed raise
@pytest.mark.parametrize(("signum", "raised"), [(signal.SIGTERM, Terminated), (signal.SIGINT, KeyboardInterrupt)],
                         ids=["SIGTERM", "Ctrl-C"])
def test_a_stop_signal_swallowed_inside_a_finaliser_is_raised_again(signum: int, raised: type) -> None:
    with supervise.terminating():
        try:
            doomed = _SignalledWhileCollected(signum)
            del doomed  # the raise happens in __del__ and goes no further
            gc.collect()
            with pytest.raises(raised):
                supervise.raise_unheard()
        finally:
            supervise.heard()
    supervise.raise_unheard()  # heard: nothing raised any more
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's own again


def test_a_sigterm_inside_a_held_block_is_raised_when_the_block_ends() -> None:
    done: list[str] = []
    with supervise.terminating():
        try:
            with pytest.raises(Terminated), supervise.held_termination():
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(10_000):  # the handler runs at a bytecode boundary in here
                    pass
                done.append("row written")
                done.append("unit counted")
        finally:
            supervise.heard()
    assert done == ["row written", "unit counted"]  # the block ran whole before Terminated

