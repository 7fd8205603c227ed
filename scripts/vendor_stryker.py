"""Refresh the vendored Stryker files in harness/_mutate/vendor/ from their npm packages.

    python scripts/vendor_stryker.py              # the versions VENDORED.json names
    python scripts/vendor_stryker.py --latest     # the registry's latest of each

Run by hand (it needs ``npm`` and the registry); nothing downloads at install or test time.
It takes each package's tarball with ``npm pack``, copies the one file the harness uses and the
package's licence, and records name, version, file and sha256 in VENDORED.json, which
tests/unit/mutate/test_vendored.py checks the files against.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

__all__ = ["PACKAGES", "main"]

VENDOR = Path(__file__).resolve().parent.parent / "harness" / "_mutate" / "vendor"
# package -> (file inside the tarball, name it is kept under)
PACKAGES = {
    "mutation-testing-elements": ("package/dist/mutation-test-elements.js", "mutation-test-elements.js"),
    "mutation-testing-report-schema": ("package/src/mutation-testing-report-schema.json",
                                       "mutation-testing-report-schema.json"),
}


def _npm(*args: str, cwd: Path) -> str:
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is not on PATH: install Node.js (Debian: apt-get install npm)")
    done = subprocess.run([npm, *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=300)
    return done.stdout.strip()


def _fetch(name: str, version: str, work: Path) -> dict[str, str]:
    inner, kept = PACKAGES[name]
    tgz = work / _npm("pack", f"{name}@{version}", "--silent", cwd=work).splitlines()[-1]
    with tarfile.open(tgz) as tar:
        meta = json.load(tar.extractfile("package/package.json"))  # type: ignore[arg-type]
        body = tar.extractfile(inner).read()  # type: ignore[union-attr]
        licence = tar.extractfile("package/LICENSE").read()  # type: ignore[union-attr]
    (VENDOR / kept).write_bytes(body)
    (VENDOR / f"{name}.LICENSE").write_bytes(licence)
    return {"package": name, "version": meta["version"], "license": meta.get("license", ""),
            "source": f"npm package {name}@{meta['version']}, {inner.removeprefix('package/')}",
            "file": kept, "sha256": hashlib.sha256(body).hexdigest()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latest", action="store_true", help="take the latest version of each package")
    args = parser.parse_args(argv)
    record = VENDOR / "VENDORED.json"
    current = {e["package"]: e["version"] for e in json.loads(record.read_text())} if record.is_file() else {}
    VENDOR.mkdir(parents=True, exist_ok=True)
    entries = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in PACKAGES:
            version = "latest" if args.latest or name not in current else current[name]
            entries.append(_fetch(name, version, Path(tmp)))
    record.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
    for e in entries:
        print(f"{e['package']} {e['version']}: {e['file']} ({e['sha256'][:12]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
