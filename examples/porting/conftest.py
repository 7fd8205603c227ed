"""The one adapter the port needs: the review's pins take the module under review as ``router``.

``pipeline_module`` (from the harness's pytest plugin) is the module that defines the subject's
pipeline: the new one, or the old one under ``--harness-against old``; the mutation engine
charges each pin for the functions of it the pin reaches."""

import pytest


@pytest.fixture
def router(pipeline_module):
    return pipeline_module("router")
