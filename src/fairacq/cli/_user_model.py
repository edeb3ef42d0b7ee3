"""A user's ``--model module:Class`` that fails inside its own code: one line, not a traceback.

:func:`model_from_options` remembers the module of every ``--model module:Class`` it builds.
When a command then fails with an exception raised in that module's code (its ``fit`` or
``predict_proba`` raised, in this process or in a worker), :func:`user_model_failure` words
one line naming the model, the method and the fix. A model whose outputs are no classifier's
(:class:`~fairacq.exceptions.DegenerateModelError`) gets the model's name in front.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from types import TracebackType

from fairacq.exceptions import DegenerateModelError

__all__ = ["forget_user_models", "remember_user_model", "user_model_failure"]

#: module name -> the ``--model`` text that named it, for the command being run.
_GIVEN: dict[str, str] = {}


def remember_user_model(spec: str, model: object) -> None:
    """Remember ``spec`` (``"module:Class"``) so a failure inside its code is worded.

    Both the module ``spec`` names and the one defining ``model``'s class count.
    """
    for module in (spec.split(":", 1)[0], type(model).__module__):
        _GIVEN[module] = spec


def forget_user_models() -> None:
    """Forget every remembered model (called when a command starts)."""
    _GIVEN.clear()


def user_model_failure(exc: BaseException) -> str | None:
    """Return the one-line error for a failure of a remembered model, or None.

    Parameters
    ----------
    exc : BaseException
        The exception a command ended with.

    Returns
    -------
    str or None
        ``"--model M failed in fit: RuntimeError: ... Fix ..."`` when ``exc`` was raised in
        the code of a remembered model's module; the message of a
        :class:`~fairacq.exceptions.DegenerateModelError` with the model named; None otherwise.
    """
    if not _GIVEN:
        return None
    if isinstance(exc, DegenerateModelError):
        return f"--model {', '.join(dict.fromkeys(_GIVEN.values()))}: {exc}"
    found = _raised_in(exc)
    if found is None:
        return None
    spec, method = found
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    what = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    return (
        f"--model {spec} failed in its {method} ({what}). Fix the model's code or "
        "parameters (--model-param), or pick a built-in model such as --model lr."
    )


def _raised_in(exc: BaseException) -> tuple[str, str] | None:
    """Return the remembered model and the function of its code ``exc`` passed through."""
    for module, function in _frames(exc):
        if module in _GIVEN:
            return _GIVEN[module], function
    remote = str(exc.__cause__ or "")  # a worker's traceback, as text
    for module, spec in _GIVEN.items():
        path = getattr(sys.modules.get(module), "__file__", None)
        if path and f'File "{path}"' in remote:
            return spec, _remote_function(remote, path)
    return None


def _frames(exc: BaseException) -> Iterator[tuple[str, str]]:
    """Yield ``(module name, function name)`` of each frame of ``exc``, outermost first."""
    tb: TracebackType | None = exc.__traceback__
    for frame, _ in traceback.walk_tb(tb):
        yield str(frame.f_globals.get("__name__", "")), frame.f_code.co_name


def _remote_function(remote: str, path: str) -> str:
    """Return the function named on the first line of ``remote`` pointing into ``path``."""
    for line in remote.splitlines():
        if f'File "{path}"' in line and ", in " in line:
            return line.rsplit(", in ", 1)[1].strip()
    return "code"
