"""Observations for pins, made in this process and cached per (suite, case, lane, side).

Pins run as pytest items, so their observations are made in-process (the mutation engine needs
that: a mutant switched on in this process must reach the pipeline). ``clear()`` drops the
cache; the mutation engine calls it in each forked child so no observation made before a
mutant was switched on can hide it.

``against`` chooses which pipeline plays "new": set to ``"old"`` (``--harness-against old``)
to run every pin against the previous pipeline and see which pins exist to catch it.

``use_store`` points the cache at a run's saved observations (``harness._evidence``): during
``harness run`` the pins read what the build stage already made instead of calling every
pipeline again; only fresh calls (determinism, idempotence) still run a pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from harness._differential.unit import Pipelines
from harness._evidence import load_observations
from harness._load import load_suite
from harness._model import Observation, PipelineSpec, Side, Suite
from harness._pipeline import call_isolated

__all__ = ["adopt", "against", "clear", "fresh", "fresh_timeouts", "observe", "own_pipelines", "played_by", "refeed",
           "set_against", "set_isolate", "set_revisions", "set_versions", "suite_for", "use_saved", "use_store"]

_observations: dict[tuple[str, str, str, Side, PipelineSpec], Observation] = {}
_stored: dict[str, Mapping[tuple[str, str, str], Observation]] = {}
_suites: dict[str, Suite] = {}
_pipes = Pipelines()
_against: list[Side] = ["new"]
_isolate: list[bool] = [False]
_timeouts = [0]  # fresh calls that timed out since fresh_timeouts() last read it (a count: nothing grows)


def set_against(side: Side) -> None:
    _against[0] = side


def set_isolate(isolate: bool) -> None:
    """Run each pipeline call in a forked child (``--harness-isolate``): slower, crash-proof."""
    _isolate[0] = isolate


def against() -> Side:
    return _against[0]


def clear(keep: Callable[[PipelineSpec], bool] | None = None) -> None:
    """Forget every observation (suites stay loaded: they do not depend on pipeline code), and
    stop reading a run's saved ones: a mutant's pipelines must run for real. ``keep`` picks
    pipelines whose observations stay (a side played from a git revision: no mutant reaches it)."""
    kept = {key: obs for key, obs in _observations.items() if keep(key[4])} if keep is not None else {}
    _observations.clear()
    _observations.update(kept)
    _stored.clear()


def use_store(folder: Path) -> None:
    """Read observations from the store in ``folder`` before calling any pipeline."""
    _stored.clear()
    _stored[str(folder)] = load_observations(folder)


def use_saved(observations: Mapping[tuple[str, str, str], Observation]) -> None:
    """Read these observations (by case, lane, side: what the build stage just made, or a
    spool's lazy reader) before calling any pipeline; as ``use_store`` without reading a store
    back. Held, not copied: a lazy mapping stays lazy."""
    _stored.clear()
    _stored["<saved>"] = observations


_revisions: dict[str, str | None] = {}


def set_revisions(old: str | None, new: str | None) -> None:
    """Play these sides from git revisions (``--harness-revisions``), as the run that saved the
    observations did: a pin's own pipeline call must run the code the run compared."""
    _revisions.update(old=old, new=new)


def _at_revisions(suite: Suite) -> Suite:
    if not any(_revisions.values()):
        return suite
    from harness._revisions import at_revisions  # only a revisioned run pays for git

    return at_revisions(suite, _revisions.get("old"), _revisions.get("new"))[0]


_versions: list[str] = []


def set_versions(versions: list[str]) -> None:
    """Play a version matrix (``--harness-versions``) as the run did: every pair's pins."""
    _versions[:] = versions


def _at_versions(suite: Suite) -> Suite:
    if not _versions:
        return suite
    from harness._provision.matrix import expand_for_pins  # only a matrix run pays for it

    return expand_for_pins(suite, _versions)


def suite_for(path: Path) -> Suite:
    """The suite a file belongs to: the nearest folder upward holding suite.yaml."""
    for folder in [path if path.is_dir() else path.parent, *path.parents]:
        if (folder / "suite.yaml").is_file():
            key = _key(folder)
            if key not in _suites:
                _suites[key] = _at_versions(_at_revisions(load_suite(folder)))
            return _suites[key]
    raise LookupError(f"{path} is not inside a suite folder (no suite.yaml above it)")


def adopt(suite: Suite, revisions: Mapping[str, str] | None = None) -> None:
    """Hold ``suite`` as the one loaded from its folder (a forked child of the harness has it
    loaded already, at the run's ``revisions`` and versions): ``suite_for`` will not load it again."""
    _versions[:] = list(suite.settings.matrix)
    set_revisions((revisions or {}).get("old"), (revisions or {}).get("new"))
    _suites[_key(Path(suite.root))] = suite


def _key(folder: Path) -> str:
    """A suite as loaded for the sides it plays: a session at a revision (or versions) and a later
    one in the same process (pytester, an IDE) without it must not share the loaded suite."""
    played = [f"{side}:{rev}" for side, rev in sorted(_revisions.items()) if rev] + list(_versions)
    return str(folder.resolve()) + ("@" + ",".join(played) if played else "")


def played_by(side: Side) -> Side:
    """The pipeline that plays ``side``: against old, "new" is played by the old pipeline."""
    return against() if side == "new" else "old"


def _spec(suite: Suite, case_id: str, side: Side) -> PipelineSpec:
    return suite.subjects[suite.case(case_id).subject].pipeline(played_by(side))


def fresh(suite: Suite, case_id: str, lane_id: str, side: Side = "new",
          pipeline_input: Any = None) -> Observation:
    """Run the pipeline now, uncached (for determinism and idempotence checks)."""
    case = suite.case(case_id)
    timeout = suite.settings.timeout_s
    spec = _spec(suite, case_id, side)
    pipeline = _pipes.get(spec)
    args = (case.input if pipeline_input is None else pipeline_input, suite.lanes[lane_id].as_dict())
    if _isolate[0] and spec.in_process:  # a command pipeline is its own process already
        fn = pipeline.fn  # type: ignore[attr-defined]
        obs = call_isolated(fn, *args, case_id=case_id, lane_id=lane_id, side=side, timeout=timeout)
    else:
        obs = pipeline.call(*args, case_id=case_id, lane_id=lane_id, side=side, timeout=timeout)
    _timeouts[0] += obs.outcome == "timeout"
    return obs


def fresh_timeouts() -> int:
    """How many fresh calls timed out since the last look; back to 0 once read."""
    count, _timeouts[0] = _timeouts[0], 0
    return count


def _saved(case_id: str, lane_id: str, side: Side) -> Observation | None:
    for saved in _stored.values():
        obs = saved.get((case_id, lane_id, played_by(side)))
        if obs is not None:
            return Observation(obs.case_id, obs.lane_id, side, obs.outcome, wire=obs.wire, error=obs.error,
                               duration_s=obs.duration_s)
    return None


def observe(suite: Suite, case_id: str, lane_id: str, side: Side = "new") -> Observation:
    """The (cached) observation of one side on one case x lane: the saved one when a run's
    store is in use, else one pipeline call."""
    # keyed by the side that plays too: old and new may share one declaration (a subject compared
    # with itself across revisions) while the run's saved observations of the two differ
    key = (suite.root, case_id, lane_id, played_by(side), _spec(suite, case_id, side))
    if key not in _observations:
        _observations[key] = _saved(case_id, lane_id, side) or fresh(suite, case_id, lane_id, side)
    return _observations[key]


def own_pipelines() -> Pipelines:
    """A fresh table of open pipelines for this (forked) process, returned for the caller to
    close: the pipelines a parent opened stay its own (closing them here would shut them for it)."""
    global _pipes
    _pipes = Pipelines()
    return _pipes


def refeed(suite: Suite, case_id: str, output: Any) -> Any:
    subject = suite.subjects[suite.case(case_id).subject]
    if not subject.refeed:
        raise LookupError(f"subject {subject.name} has no refeed function")
    return _pipes.function(subject.refeed)(suite.case(case_id).input, output)
