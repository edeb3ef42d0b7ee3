"""Warnings that point at the user's line, however deep inside fairacq they are raised."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

__all__ = ["warn_caller"]

_PACKAGE = str(Path(__file__).resolve().parent)


def warn_caller(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue ``message`` attributed to the first frame outside the fairacq package.

    ``stacklevel`` counted by hand breaks whenever a call moves one frame deeper; this walks
    the stack instead, so the warning names the user's own call.
    """
    level, frame = 2, sys._getframe(1)  # level 1 would be this function
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        level += 1
        frame = frame.f_back  # type: ignore[assignment]
    warnings.warn(message, category, stacklevel=level)
