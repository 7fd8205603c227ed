"""The mutmut adapter in a fresh interpreter: only a new Python shows what importing and using
the adapter does to process-wide state (moved from tests/unit/mutate/test_mutmut_canary.py: a
subprocess Python is an end-to-end cost)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.unit.mutate.test_mutmut_canary import SOURCE

pytestmark = pytest.mark.slow


# expensive: a fresh interpreter (0.7 CPU s); tests/unit/mutate/test_mutmut_canary.py::
# test_using_the_adapter_imports_no_mutmut_main_and_leaves_the_start_method_as_it_was checks the
# same in the test process
@pytest.mark.expensive
def test_using_the_adapter_never_imports_mutmut_main_nor_sets_the_start_method() -> None:
    code = ("import multiprocessing, sys\n"
            "from harness._mutate import mutmut_adapter as a\n"
            f"a.generate('c.py', {SOURCE!r})\n"
            "a.activate(None)\n"
            "print(multiprocessing.get_start_method(allow_none=True), 'mutmut.__main__' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.split() == ["None", "False"]
