"""The library's folders stay small: no folder holds more than 16 modules side by side."""

from __future__ import annotations

from pathlib import Path

import pytest

import fairacq

MAX_MODULES = 16
ROOT = Path(fairacq.__file__).parent


def _folders() -> list[Path]:
    return sorted(p for p in [ROOT, *ROOT.rglob("*")] if p.is_dir() and p.name != "__pycache__")


def _modules(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("*.py") if p.name != "__init__.py")


@pytest.mark.parametrize("folder", _folders(), ids=lambda p: str(p.relative_to(ROOT.parent)))
def test_no_folder_holds_more_than_sixteen_modules(folder: Path) -> None:
    modules = _modules(folder)
    assert len(modules) <= MAX_MODULES, (
        f"{folder} holds {len(modules)} modules; split it into role subpackages: {modules}"
    )


def test_the_walk_sees_the_packages_it_checks() -> None:
    names = {str(p.relative_to(ROOT)) for p in _folders()}
    assert {".", "acquisition/methods", "features/dadi", "relational/a3sl"} <= names
    assert len(_modules(ROOT / "compare")) >= 10
