"""Wheels of tests/scenarios/packages/tinywire, one per version, made with zipfile: no build
backend, no network. pip installs them with --no-index --find-links. ``versions_suite`` copies
the scenario suite that plays them (tests/scenarios/suites/versions) with its wheels made."""

from __future__ import annotations

import base64
import hashlib
import shutil
import zipfile
from pathlib import Path

__all__ = ["SOURCE", "make_wheels", "setuptools_version", "versions_suite"]

SOURCE = Path(__file__).parent / "scenarios" / "packages" / "tinywire"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def make_wheels(folder: Path, versions: tuple[str, ...] = ("1.0.0", "2.0.0", "3.0.0")) -> Path:
    """``tinywire-<v>-py3-none-any.whl`` for each version in ``folder``; the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for version in versions:
        info = f"tinywire-{version}.dist-info"
        files = {f"tinywire/{p.name}": p.read_bytes() for p in sorted((SOURCE / "tinywire").glob("*.py"))}
        files["tinywire/_version.py"] = f'VERSION = "{version}"\n'.encode()
        files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: tinywire\nVersion: {version}\n".encode()
        files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        record = [_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
        files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
        with zipfile.ZipFile(folder / f"tinywire-{version}-py3-none-any.whl", "w") as wheel:
            for name, data in files.items():
                wheel.writestr(name, data)
    return folder


def setuptools_version() -> tuple[int, ...]:
    """Read from its metadata, not imported: importing setuptools in a test process where another
    test already imported the standard library's distutils fails in setuptools' distutils shim."""
    from importlib import metadata

    try:
        return tuple(int(x) for x in metadata.version("setuptools").split(".")[:2])
    except metadata.PackageNotFoundError:
        return (0,)


def versions_suite(folder: Path, scenarios: Path) -> Path:
    """tests/scenarios/suites/versions copied to ``folder``, its cassettes the bundled ones and
    its wheels made in ``folder / "wheels"``; the folder."""
    shutil.copytree(scenarios / "suites" / "versions", folder)
    cassettes = Path(__file__).resolve().parents[1] / "cassettes"
    text = (folder / "suite.yaml").read_text().replace("CASSETTES", str(cassettes))
    (folder / "suite.yaml").write_text(text)
    make_wheels(folder / "wheels")
    return folder
