"""Every module imports first in a fresh interpreter: no import cycle hides behind the order a
test run happens to import things in."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.unit.test_public_surface import all_modules

pytestmark = pytest.mark.slow


def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    script = "import importlib, sys\nfor name in sys.argv[1:]:\n    importlib.import_module(name)\n"
    failed = []
    for name in all_modules():
        got = subprocess.run([sys.executable, "-c", script, name], capture_output=True, text=True, check=False)
        if got.returncode:
            failed.append(f"{name}: {got.stderr.strip().splitlines()[-1]}")
    assert not failed, failed
