"""Serve Python pipelines over the JSON-lines protocol: ``serve(old=fn, new=fn)``.

For a Python pipeline that must run outside the harness's process (another virtualenv, another
revision, a heavy import paid once): a script ends with ``serve(old=build_old, new=build_new)``
and the suite names it as a ``command``. ``serve.py`` is standard-library only, so it also runs
by path inside an interpreter where the harness is not installed.
"""

from harness.adapter.serve import serve

__all__ = ["serve"]
