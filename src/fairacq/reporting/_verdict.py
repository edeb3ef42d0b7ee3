"""One Markdown line per acceptance check of an experiment."""

from __future__ import annotations

from typing import Protocol

__all__ = ["VerdictLike", "format_verdict"]


class VerdictLike(Protocol):
    """What :func:`format_verdict` reads (an experiment's acceptance check has it)."""

    @property
    def name(self) -> str:
        """What is checked."""

    @property
    def met(self) -> bool:
        """Whether the check holds."""

    @property
    def ours(self) -> float | None:
        """The value the check is decided on (None: nothing to measure)."""

    @property
    def target(self) -> float:
        """The bound ``ours`` must reach."""

    @property
    def op(self) -> str:
        """``"<="`` or ``">="``."""

    @property
    def paper(self) -> float | None:
        """The paper's value of the same quantity, if it reports one."""

    @property
    def detail(self) -> str:
        """Context: the other numbers behind the verdict."""


def format_verdict(verdict: VerdictLike) -> str:
    """Word an acceptance check as one Markdown line.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> v = SimpleNamespace(name="gap to the ceiling", met=False, ours=0.016, target=0.01,
    ...                     op="<=", paper=None, detail="Aopt 0.789.")
    >>> print(format_verdict(v))
    Acceptance check, gap to the ceiling: 0.016 (target <= 0.01): NOT met. Aopt 0.789.
    """
    ours = "—" if verdict.ours is None else f"{verdict.ours:.4g}"
    paper = "" if verdict.paper is None else f"; paper {verdict.paper:.4g}"
    state = "met" if verdict.met else "NOT met"
    line = (
        f"Acceptance check, {verdict.name}: {ours} "
        f"(target {verdict.op} {verdict.target:.4g}{paper}): {state}."
    )
    return f"{line} {verdict.detail}" if verdict.detail else line
