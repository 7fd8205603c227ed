"""The scenario's build step: src/pipeline.py -> build/pipeline.py, only when the source is
newer (an incremental build); each real build appends a line to build/log.txt."""

import pathlib
import sys

src, out = pathlib.Path("src/pipeline.py"), pathlib.Path("build/pipeline.py")
if not out.exists() or out.stat().st_mtime_ns < src.stat().st_mtime_ns:
    text = src.read_text()
    try:
        compile(text, str(src), "exec")
    except SyntaxError as exc:
        sys.exit(f"build failed: {src}:{exc.lineno}: {exc.msg}")
    out.parent.mkdir(exist_ok=True)
    out.write_text("# built from src/pipeline.py\n" + text)
    with pathlib.Path("build/log.txt").open("a") as log:
        log.write("built\n")
