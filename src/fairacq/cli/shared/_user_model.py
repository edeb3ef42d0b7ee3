"""A user's ``--model module:Class`` that fails inside its own code: one line, not a traceback.

:func:`model_from_options` remembers the module of every ``--model module:Class`` it builds.
When a command then fails with an exception raised in that module's code (its ``fit`` or
``predict_proba`` raised, in this process or in a worker), :func:`user_model_failure` words
one line naming the model, the method and the fix. A model whose outputs are no classifier's
(:class:`~fairacq.exceptions.DegenerateModelError`) gets the model's name in front.
:func:`model_build_failure` words a model that could not even be built (its constructor
raised, or it does not take the ``--model-param`` given).
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from types import TracebackType

from fairacq.exceptions import DegenerateModelError

__all__ = [
    "forget_user_models",
    "model_build_failure",
    "remember_user_model",
    "user_model_failure",
]

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
    return (
        f"--model {spec} failed in its {method} ({_what(exc)}). Fix the model's code or "
        "parameters (--model-param), or pick a built-in model such as --model lr."
    )


def model_build_failure(spec: str, params: list[str], exc: Exception) -> str:
    """Return the one-line error for a ``--model`` that could not be built.

    Parameters
    ----------
    spec : str
        The ``--model`` text (a built-in name or ``"module:Class"``).
    params : list of str
        The names of the ``--model-param`` values given.
    exc : Exception
        What building the model raised.

    Returns
    -------
    str
        Parameters the model does not take (a TypeError or ValueError raised outside the
        model's own code) are named as such; anything else is the model's constructor failing.

    Examples
    --------
    >>> model_build_failure("mymod:Net", [], RuntimeError("no GPU"))[:52]
    '--model mymod:Net failed when built (RuntimeError: n'
    """
    module = spec.split(":", 1)[0] if ":" in spec else None
    own = module is not None and any(m == module for m, _ in _frames(exc))
    if params and not own and isinstance(exc, (TypeError, ValueError)):
        return (
            f"--model {spec} does not take --model-param {', '.join(params)} ({exc}). Check "
            "the parameter names."
        )
    return (
        f"--model {spec} failed when built ({_what(exc)}). Fix the model's constructor or "
        "its --model-param values, or pick a built-in model such as --model lr."
    )


def _what(exc: BaseException) -> str:
    """``"RuntimeError: its first line"`` (the type alone for an empty message)."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


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
