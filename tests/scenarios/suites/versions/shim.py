"""The entry point the suite names: the released library's call, shaped as (input, lane)."""

import tinywire


def build(pipeline_input, lane):
    return tinywire.build_body(pipeline_input["tools"], lane)
