"""Every package's ``__all__`` is sorted, complete and importable, and pinned.

The public names (``package.name``, one a line) are pinned in ``tests/public_api.txt``, so
the API changes only on purpose. After a deliberate change, regenerate the file with::

    python tests/test_public_api.py --update
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
import sys
from pathlib import Path

import pytest

import fairacq

PACKAGES = sorted(
    m.name
    for m in pkgutil.walk_packages(fairacq.__path__, "fairacq.")
    if m.ispkg and not any(part.startswith("_") for part in m.name.split(".")[1:])
)


SNAPSHOT = Path(__file__).with_name("public_api.txt")
UPDATE_HINT = "python tests/test_public_api.py --update"


def public_names() -> list[str]:
    """Every public name, ``package.name``, from each public package's ``__all__``."""
    return [
        f"{name}.{item}"
        for name in ["fairacq", *PACKAGES]
        for item in sorted(importlib.import_module(name).__all__)
    ]


def snapshot_diff(pinned: list[str], current: list[str]) -> str:
    """A unified diff from the pinned names to the current ones ("" when equal)."""
    lines = difflib.unified_diff(pinned, current, "public_api.txt", "current API", lineterm="")
    return "\n".join(lines)


def _isort_key(name: str) -> tuple[int, str]:
    """The order ruff's RUF022 keeps: CONSTANTS, then Classes, then functions."""
    if name.isupper() and len(name) > 1:
        return (0, name)
    if name[:1].isupper():
        return (1, name)
    return (2, name)


@pytest.mark.parametrize("name", ["fairacq", *PACKAGES])
def test_all_sorted_and_importable(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported == sorted(exported, key=_isort_key), f"{name}.__all__ is not sorted"
    for item in exported:
        assert hasattr(module, item), f"{name}.__all__ names missing {item}"


@pytest.mark.parametrize("name", ["fairacq", *PACKAGES])
def test_all_complete(name):
    module = importlib.import_module(name)
    public = {
        k
        for k, v in vars(module).items()
        if not k.startswith("_")
        and getattr(v, "__module__", "").startswith("fairacq")
        and not isinstance(v, type(fairacq))
    }
    missing = public - set(module.__all__)
    assert not missing, f"{name} defines public names not in __all__: {sorted(missing)}"


def test_public_api_matches_the_pinned_snapshot():
    pinned = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    diff = snapshot_diff(pinned, public_names())
    assert not diff, (
        "The public API changed (- removed, + added):\n"
        f"{diff}\n"
        f"If this is on purpose, regenerate the snapshot with `{UPDATE_HINT}` and commit it."
    )


def test_snapshot_diff_shows_added_and_removed_names():
    assert snapshot_diff(["fairacq.a", "fairacq.b"], ["fairacq.a", "fairacq.b"]) == ""
    diff = snapshot_diff(["fairacq.a", "fairacq.b"], ["fairacq.a", "fairacq.c"])
    assert "-fairacq.b" in diff.splitlines()
    assert "+fairacq.c" in diff.splitlines()


def test_import_is_light():
    import subprocess
    import sys

    code = (
        "import sys, fairacq, fairacq.cli; "
        "print(any(m in sys.modules for m in ('torch', 'dask', 'distributed', 'sklearn')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: {UPDATE_HINT}  (rewrites {SNAPSHOT.name} from the current API)")
    names = public_names()
    SNAPSHOT.write_text("\n".join(names) + "\n", encoding="utf-8")
    print(f"wrote {len(names)} public names to {SNAPSHOT}")
