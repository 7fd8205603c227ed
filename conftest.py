"""Root conftest: registers the harness's pytest plugin, so plain ``pytest`` here runs the
harness's own tests (tests/) and every pin of the bundled suite (cases/)."""

pytest_plugins = ["harness.pins.plugin"]
