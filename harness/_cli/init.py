"""``harness init [FOLDER]``: a working suite in a user's repository, green at once.

It writes the suite folder (default ``cases``, which ``harness run`` finds by itself):
``suite.yaml`` (one subject, its two sides the stub's functions; no ``rules:`` key, so bodies
are checked against the bundled catalog), ``lanes.yaml`` (lanes of the chosen wire taken from
the bundled catalog, each as that catalog has it), ``example.cases.yaml`` (one case with one
tool) and ``pipeline.py`` (the stub: a body of the wire built from the case's tools, for the user
to point at their own function). With ``--pyproject`` the settings go into ``pyproject.toml``'s
``[tool.wire-harness]`` table instead of suite.yaml. It never overwrites a file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
import yaml

from harness._catalog import catalog_path
from harness._errors import ConfigError

__all__ = ["LANES", "command"]

LANES: Mapping[str, tuple[str, ...]] = {
    "anthropic-messages": ("anthropic-first-party", "deepseek-anthropic", "custom-gateway-claude"),
    "openai-chat": ("openai-chat", "openrouter"),
    "openai-responses": ("openai-responses",),
    "gemini-generate-content": ("gemini-api", "vertex-gemini"),
}
"""The lanes ``init`` takes from the bundled catalog per wire (``--lane`` picks others): the
provider's own endpoint, and a compatible endpoint or a gateway in front of it where the catalog
has one."""

# What each wire's stub builds from a case's tools ({name, description, input_schema}).
_TOOLS = {
    "anthropic-messages": """\
    tools = [{"name": t["name"], "description": t.get("description", ""),
              "input_schema": t["input_schema"]} for t in pipeline_input["tools"]]
    return {"model": lane.get("model") or "claude-sonnet-4-5", "max_tokens": 1024, "tools": tools,
            "messages": [{"role": "user", "content": "Use a tool."}]}""",
    "openai-chat": """\
    tools = [{"type": "function",
              "function": {"name": t["name"], "description": t.get("description", ""),
                           "parameters": t["input_schema"]}} for t in pipeline_input["tools"]]
    return {"model": lane.get("model") or "gpt-4o", "tools": tools,
            "messages": [{"role": "user", "content": "Use a tool."}]}""",
    "openai-responses": """\
    tools = [{"type": "function", "name": t["name"], "description": t.get("description", ""),
              "parameters": t["input_schema"]} for t in pipeline_input["tools"]]
    return {"model": lane.get("model") or "gpt-4.1", "tools": tools, "input": "Use a tool."}""",
    "gemini-generate-content": """\
    declarations = [{"name": t["name"], "description": t.get("description", ""),
                     "parameters": t["input_schema"]} for t in pipeline_input["tools"]]
    return {"contents": [{"role": "user", "parts": [{"text": "Use a tool."}]}],
            "tools": [{"function_declarations": declarations}]}""",
}

_STUB = '''"""The pipeline this suite tests: ``(input, lane) -> request body`` (JSON).

``input`` is the case's ``{{"tools": [...], **input}}``; ``lane`` is the lane from lanes.yaml as
plain JSON (id, wire, provider, base_url, model, options). Point ``build_body`` at your own code,
for example:

    from mypackage.client import build_request   # the project root is importable

    def build_body(pipeline_input, lane):
        return build_request(pipeline_input["tools"], base_url=lane["base_url"], model=lane["model"])

``old`` is the pipeline as it was (your last release) and ``new`` the one under change; both
start as the same function. ``harness run --old-ref main`` plays ``new`` as it is at ``main``
as the old side instead, with no second function to keep.
"""


def build_body(pipeline_input, lane):
    """A {wire} body carrying the case's tools as they are (stand-in: replace with yours)."""
{tools}


old_body = build_body
new_body = build_body
'''

_CASES = '''# One case: the tools a pipeline is given, and what old and new may do with them on each lane.
# More: README.md "A suite" (expect, checks, pins, rejections), docs/suites.md.
version: 1
subject: {subject}
cases:
  - id: lookup-tool
    title: one plain tool with a required string argument
    tools:
      - name: lookup
        description: Look a word up.
        input_schema:
          type: object
          properties:
            query: {{type: string, description: What to look up.}}
          required: [query]
    expect:
      "*": same      # old and new send the same bytes on every lane
'''


def _lanes(wire: str, wanted: tuple[str, ...]) -> list[dict[str, Any]]:
    """The bundled catalog's lanes named ``wanted`` (default: the wire's), as the catalog has them."""
    catalog: dict[str, dict[str, Any]] = {}
    for path in sorted(catalog_path("lanes").glob("*.yaml")):
        for lane in yaml.safe_load(path.read_text(encoding="utf-8")).get("lanes", []):
            catalog[lane["id"]] = lane
    ids = wanted or LANES[wire]
    unknown = [i for i in ids if i not in catalog]
    if unknown:
        raise ConfigError("--lane", ", ".join(unknown), f"a lane of the bundled catalog ({', '.join(sorted(catalog))})")
    lanes = [catalog[i] for i in ids]
    other = sorted({lane["id"] for lane in lanes if lane["wire"] != wire})
    if other:
        raise ConfigError("--lane", ", ".join(other), f"lanes of wire {wire} (the stub builds {wire} bodies)")
    return lanes


def _suite_name(where: Path) -> str:
    """The suite's name: the repository folder's, in the characters a suite name may hold (it
    names run folders and the report pages); ``suite`` when nothing of it is left."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", where.resolve().name).strip("._-")[:100]
    return name or "suite"


def _settings(subject: str, wire: str) -> dict[str, Any]:
    return {"version": 1, "name": _suite_name(Path.cwd()),
            "subjects": {subject: {"old": "pipeline:old_body", "new": "pipeline:new_body", "wires": [wire]}}}


_SUITE_HEAD = """# The suite's settings (README.md "A suite"; every key: docs/suites.md). No `rules:` key: bodies
# are checked against the recorded rejections bundled with the harness (`harness catalog path`);
# `rules: none` turns that off on purpose.
"""


def _toml(settings: Mapping[str, Any], folder: str) -> str:
    """The settings as a ``[tool.wire-harness]`` table (only the shapes ``_settings`` makes)."""
    subject, spec = next(iter(settings["subjects"].items()))
    wires = ", ".join(f'"{w}"' for w in spec["wires"])
    return (f'\n[tool.wire-harness]\n# the suite folder, and its settings (docs/suites.md)\nsuite = "{folder}"\n'
            f'version = 1\nname = "{settings["name"]}"\n\n'
            f'[tool.wire-harness.subjects.{subject}]\nold = "{spec["old"]}"\nnew = "{spec["new"]}"\n'
            f'wires = [{wires}]\n')


def _plan(folder: Path, wire: str, lanes: tuple[str, ...], subject: str, pyproject: bool) -> dict[Path, str]:
    """Every file init writes, with its text; the settings in suite.yaml or pyproject.toml."""
    lanes_yaml = yaml.safe_dump({"version": 1, "lanes": _lanes(wire, lanes)}, sort_keys=False, width=120)
    files = {
        folder / "lanes.yaml": "# Lanes taken from the bundled catalog (`harness catalog path lanes`): edit base_url,\n"
                               "# model and fronts to the routes your code really takes.\n" + lanes_yaml,
        folder / "example.cases.yaml": _CASES.format(subject=subject),
        folder / "pipeline.py": _STUB.format(wire=wire, tools=_TOOLS[wire]),
    }
    settings = _settings(subject, wire)
    if pyproject:
        files[Path("pyproject.toml")] = _toml(settings, folder.as_posix())
    else:
        files[folder / "suite.yaml"] = _SUITE_HEAD + yaml.safe_dump(settings, sort_keys=False)
    return files


def _refuse_overwrites(files: Mapping[Path, str], pyproject: bool) -> None:
    taken = [str(p) for p in files if p.exists() and not (pyproject and p.name == "pyproject.toml")]
    if taken:
        raise ConfigError("FOLDER", ", ".join(taken), "files init would write not there yet (it never overwrites)")
    py = Path("pyproject.toml")
    if pyproject and py.is_file() and "[tool.wire-harness" in py.read_text(encoding="utf-8"):
        raise ConfigError("--pyproject", str(py), "a pyproject.toml without a [tool.wire-harness] table yet")


@click.command("init")
@click.argument("folder", required=False, default="cases", type=click.Path(path_type=Path))
@click.option("--wire", type=click.Choice(sorted(LANES)), default="anthropic-messages", show_default=True,
              help="The wire the stub pipeline builds bodies for, and whose lanes lanes.yaml takes.")
@click.option("--lane", "lanes", multiple=True, metavar="ID",
              help="A lane of the bundled catalog to take (repeatable; default: the wire's usual ones).")
@click.option("--subject", default="my_pipeline", show_default=True, help="The subject's name in suite.yaml.")
@click.option("--pyproject", is_flag=True,
              help="Settings into pyproject.toml's [tool.wire-harness] table instead of FOLDER/suite.yaml.")
def command(folder: Path, wire: str, lanes: tuple[str, ...], subject: str, pyproject: bool) -> int:
    """Write a working suite into FOLDER (default ./cases): settings, lanes from the bundled
    catalog, one case and a pipeline stub to point at your function. `harness run` then runs it."""
    if not subject.isidentifier():
        raise ConfigError("--subject", subject, "a name made of letters, digits and _ (a subject's name)")
    if folder.is_absolute() and pyproject:
        raise ConfigError("FOLDER", str(folder), "a folder relative to pyproject.toml's (with --pyproject)")
    files = _plan(folder, wire, lanes, subject, pyproject)
    _refuse_overwrites(files, pyproject)
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        with path.open("a" if path.name == "pyproject.toml" else "x", encoding="utf-8") as out:
            out.write(text)
        click.echo(f"wrote {path}", err=True)
    hint = "" if folder == Path("cases") or pyproject else f" {folder}"
    click.echo(f"next: point {folder / 'pipeline.py'}'s build_body at your code, then `harness run{hint}`", err=True)
    return 0
