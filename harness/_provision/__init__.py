"""Released versions as sides: environments provisioned and cached by their requirements, and
the version matrix (``--versions`` / ``matrix:``).

    envs     provision(spec): a venv per requirement set under <cache>/envs/<hash>, reused offline
    sides    package_side(raw): a ``package:`` side as a PipelineSpec run by that venv's python
    matrix   expand(suite, versions): one subject per pair of versions, in one run; the pins'
             child pytest plays the same pairs (pins_option, expand_for_pins)
"""

from harness._provision.envs import cache_root, env_python, provision
from harness._provision.matrix import expand, expand_for_pins, pairs, parse_versions, pins_option
from harness._provision.released import distribution, package_side, requirement_problems, with_version

__all__ = ["cache_root", "distribution", "env_python", "expand", "expand_for_pins", "package_side", "pairs",
           "parse_versions", "pins_option", "provision", "requirement_problems", "with_version"]
