"""Lazy public names for package ``__init__`` modules (PEP 562 ``__getattr__``).

A package whose public names pull in heavy libraries lists, for each name, the submodule that
defines it; the submodule is imported on first access and the value cached in the package.
``from package import Name``, ``package.Name``, ``dir(package)`` and ``__all__`` keep working,
while ``import package`` stays cheap (a command line that needs one name does not pay for the
others).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, names: Mapping[str, str], exported: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the ``__getattr__`` and ``__dir__`` of ``package`` for its lazy ``names``.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : mapping of str to str
        Public name -> module defining it (``"fairacq.x._mod"``). A name equal to its
        module's last part (``"splits": "fairacq.data.splits"``) stands for the module itself.
    exported : sequence of str
        The package's ``__all__`` (listed by ``dir()``).

    Returns
    -------
    (__getattr__, __dir__)
        Assign both at module level of the package.

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("fairacq", {"Trace": "fairacq._trace"}, ["Trace"])
    >>> getattr_("Trace").__name__
    'Trace'
    """

    def __getattr__(name: str) -> Any:
        module_name = names.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(module_name)
        value = module if module_name.rsplit(".", 1)[-1] == name else getattr(module, name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exported))

    return __getattr__, __dir__
