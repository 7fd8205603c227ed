"""Every module imports first in a fresh interpreter: no import cycle hides behind the order a
test run happens to import things in.

One fresh interpreter per module cost about 19 CPU seconds (158 modules, each paying for
pydantic, jsonschema, deepdiff and vcr again). Here one fresh interpreter imports the
third-party packages the harness uses (top-level packages only, as ``import x`` in a harness
module would), then forks once per harness module: each child starts with no harness module
loaded but the ``harness`` package itself, so every harness-to-harness import happens in the
order that module alone causes. A preloaded top-level package gives a module no name it did
not import itself, and holds only the submodules the package itself imports, so nothing a
module forgot to import is lent to it. The ``harness`` package is preloaded too (after the
check that no third-party package imports it): importing any harness module first runs
``harness/__init__.py`` to its end before anything else of the harness, so every child would
begin the same way, and each paid for it again (half this test's CPU); a cycle through
``__init__`` fails the preload, and so the test."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.unit.test_public_surface import all_modules

pytestmark = pytest.mark.slow

# argv: the module names. Prints a JSON list of "module: last line of the error".
SCRIPT = r'''
import importlib, json, os, sys, traceback

OWN = ("harness", "wire_harness_subjects")


def in_child(job):
    """job() in a forked child; its exit status and what it wrote to the pipe."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            text, code = job(), 0
        except BaseException:
            text, code = traceback.format_exc().strip().splitlines()[-1], 1
        os.write(write, text.encode())
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        text = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), text


def third_party():
    """Top-level packages outside the harness that importing every harness module loads."""
    before = set(sys.modules)
    for name in sys.argv[1:]:
        importlib.import_module(name)
    tops = {n.split(".")[0] for n in set(sys.modules) - before}
    return json.dumps(sorted(t for t in tops if t not in OWN and not t.startswith("_")))


code, text = in_child(third_party)
for top in json.loads(text) if code == 0 else []:
    try:
        importlib.import_module(top)
    except Exception:  # an optional backend a package probes for: the child pays for it instead
        pass
assert not any(n.split(".")[0] in OWN for n in sys.modules), "a third-party package imported the harness"
importlib.import_module("harness")  # what importing any harness module first runs first, in full
failed = []
for name in sys.argv[1:]:
    code, text = in_child(lambda: importlib.import_module(name) and "")
    if code:
        failed.append(f"{name}: {text}")
print(json.dumps(failed))
'''


def imports_failing_first(modules: list[str]) -> list[str]:
    """Of ``modules``, those that fail to import first in a fresh interpreter, with their error."""
    got = subprocess.run([sys.executable, "-c", SCRIPT, *modules], capture_output=True, text=True,
                         check=False, timeout=600)
    assert got.returncode == 0, got.stderr[-3000:]
    failed: list[str] = json.loads(got.stdout.strip().splitlines()[-1])
    return failed


def test_each_stage_package_and_top_level_module_imports_first_in_a_fresh_interpreter() -> None:
    # the README's tier: the 26 modules right under harness/ (each stage's entry, the CLI, the
    # plugin), about a CPU second; every module, six, runs nightly (the test below)
    tops = [name for name in all_modules() if name.count(".") <= 1]
    assert "harness._differential" in tops and "harness._cli" in tops
    assert not imports_failing_first(tops)


@pytest.mark.expensive
def test_every_module_imports_first_in_a_fresh_interpreter() -> None:
    assert not imports_failing_first(all_modules())


def test_a_command_imports_only_its_own_module_so_show_starts_without_the_run_stage() -> None:
    # every command module was imported at start: `harness show` paid for the run stage and vcrpy
    code = ("import sys, click; from harness._cli.main import cli; "
            "cli.get_command(click.Context(cli), 'show'); "
            "print(sorted(m for m in ('harness._runner', 'harness._mutate', 'vcr') if m in sys.modules))")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert got.stdout.strip() == "[]", got.stdout
