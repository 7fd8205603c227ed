"""Python pin: a lane whose wire the subject does not serve is refused with one clear message.

No case can reach this (the loader only runs a subject's cases on lanes of its own wires), yet a
caller that builds lanes in code can: the pin calls the new pipeline directly with such a lane.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import load_callable, suite_for

SUITE = suite_for(Path(__file__))
CASE = "strict-body-bookflight"


def test_a_lane_of_a_wire_the_subject_does_not_serve_is_refused_naming_the_known_wires() -> None:
    new = load_callable(SUITE.subjects["openai_strict_resume"].new)
    lane = {**SUITE.lanes["openai-chat"].as_dict(), "wire": "gemini-generate"}
    with pytest.raises(ValueError) as err:
        new(dict(SUITE.case(CASE).input), lane)
    assert str(err.value) == ("openai_strict_resume: lane wire 'gemini-generate': expected one of "
                              "anthropic-resume, mistral-chat, openai-chat, openai-responses")
