"""Write one API reference page per public package, from the package's ``__all__``.

The pages are generated at every build (``docs/conf.py`` calls :func:`write_pages`), so the
reference lists exactly the names ``tests/public_api.txt`` pins and cannot drift from the code.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import fairacq

# The command line has its own reference (``fairacq --help``); the API pages leave it out.
LEFT_OUT = "fairacq.cli"


def public_packages() -> list[str]:
    """Every public package of fairacq that gets an API page, ``fairacq`` first.

    Returns
    -------
    list of str
        Dotted package names: no part starts with an underscore, the CLI is left out.
    """
    found = sorted(
        info.name
        for info in pkgutil.walk_packages(fairacq.__path__, "fairacq.")
        if info.ispkg and not any(part.startswith("_") for part in info.name.split(".")[1:])
    )
    kept = (name for name in found if name != LEFT_OUT and not name.startswith(LEFT_OUT + "."))
    return ["fairacq", *kept]


def _documented_once(obj: object) -> bool:
    """Whether ``obj`` gets one page however many packages export it (classes, functions)."""
    return inspect.isclass(obj) or inspect.isroutine(obj)


def own_names(package: str, seen: set[int] | None = None) -> list[str]:
    """List the public names of ``package`` that get their page on this package's API page.

    Each class or function is documented once, under the first public package (in the order
    of :func:`public_packages`) that exports it; submodules are left out (they have their own
    page).

    Parameters
    ----------
    package : str
        Dotted name of a public package.
    seen : set of int or None, default=None
        ``id`` of the classes and functions already given a page; updated in place.

    Returns
    -------
    list of str
        Names from the package's ``__all__``, in its order, dunder names left out.
    """
    seen = set() if seen is None else seen
    module = importlib.import_module(package)
    names = []
    for name in module.__all__:
        obj = getattr(module, name)
        if name.startswith("__") or inspect.ismodule(obj) or id(obj) in seen:
            continue
        if _documented_once(obj):
            seen.add(id(obj))
        names.append(name)
    return names


def page_text(package: str, names: list[str]) -> str:
    """Write the reStructuredText of one package's API page: its summary and a table of names.

    Parameters
    ----------
    package : str
        Dotted name of a public package.
    names : list of str
        The names its table lists (:func:`own_names`).

    Returns
    -------
    str
        A page whose autosummary table lists the package's own public names, one stub each.
    """
    title = f"``{package}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {package}", "   :no-members:", "",
             f".. currentmodule:: {package}", "", ".. autosummary::", "   :toctree: ../generated",
             "   :nosignatures:", ""]  # fmt: skip
    lines += [f"   {name}" for name in names]
    return "\n".join(lines) + "\n"


def write_pages(out_dir: Path, stub_dir: Path) -> list[Path]:
    """Write every package's page into ``out_dir``; drop pages and stubs of names now gone.

    Parameters
    ----------
    out_dir : pathlib.Path
        Folder of the package pages (ignored by git), created when missing.
    stub_dir : pathlib.Path
        Folder of autosummary's one-page-per-name stubs: a stub whose name no page lists any
        more is deleted, so a renamed or removed name leaves no orphan page behind.

    Returns
    -------
    list of pathlib.Path
        The pages written, in the order of :func:`public_packages`.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written, stubs, seen = [], set[str](), set[int]()
    for package in public_packages():
        names = own_names(package, seen)
        if not names:
            continue
        path = out_dir / f"{package}.rst"
        text = page_text(package, names)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
        stubs.update(f"{package}.{name}.rst" for name in names)
    _prune(out_dir, {path.name for path in written})
    _prune(stub_dir, stubs)
    return written


def _prune(folder: Path, keep: set[str]) -> None:
    """Delete the ``.rst`` files of ``folder`` whose name is not in ``keep``."""
    for path in folder.glob("*.rst") if folder.is_dir() else ():
        if path.name not in keep:
            path.unlink()
