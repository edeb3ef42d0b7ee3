"""Frozen experiment configurations with ``quick`` and ``full`` presets."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self, Union

from fairacq.exceptions import InvalidParameterError

__all__ = ["ExperimentConfig", "lists_to_tuples"]


@dataclass(frozen=True)
class ExperimentConfig:
    """Base class of experiment configurations.

    Subclasses add their fields with defaults and fill ``QUICK`` (seconds; used by tests) and
    ``FULL`` (the paper's settings, each value cited in a comment) with the overrides of each
    preset.

    Parameters
    ----------
    preset : {"quick", "full", "custom"}
        Which preset produced the config.
    n_trials : int
        Independent repetitions (one seed each, spawned from ``seed``).
    seed : int
        Root seed of the experiment.
    """

    QUICK: ClassVar[dict[str, Any]] = {}
    FULL: ClassVar[dict[str, Any]] = {}

    preset: str = "custom"
    n_trials: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        if self.n_trials < 1:
            raise InvalidParameterError(
                f"{type(self).__name__}: n_trials must be >= 1, got {self.n_trials}."
            )
        if self.seed < 0:
            raise InvalidParameterError(
                f"{type(self).__name__}: seed must be >= 0, got {self.seed}."
            )

    @classmethod
    def quick(cls, **overrides: Any) -> Self:
        """Return the preset that runs in seconds (used by the tests)."""
        return cls._with(cls.QUICK, "quick", overrides)

    @classmethod
    def full(cls, **overrides: Any) -> Self:
        """Return the paper's settings."""
        return cls._with(cls.FULL, "full", overrides)

    @classmethod
    def preset_named(cls, name: str, **overrides: Any) -> Self:
        """``quick`` or ``full`` by name."""
        if name not in ("quick", "full"):
            raise InvalidParameterError(f"Unknown preset {name!r}. Use 'quick' or 'full'.")
        return cls.quick(**overrides) if name == "quick" else cls.full(**overrides)

    @classmethod
    def _with(cls, base: dict[str, Any], preset: str, overrides: dict[str, Any]) -> Self:
        cls._check_fields(overrides, ". Fields: {fields}.")
        cls._check_types(overrides)
        return cls(**{**base, "preset": preset, **overrides})

    @classmethod
    def _check_types(cls, values: dict[str, Any]) -> None:
        """Raise naming the first value whose type its field's annotation does not admit."""
        try:
            hints = typing.get_type_hints(cls)
        except (NameError, TypeError):  # an annotation only a type checker can resolve
            return
        for name, value in values.items():
            hint = hints.get(name, Any)
            if not _admits(hint, value):
                raise InvalidParameterError(
                    f"{cls.__name__}: field {name!r} takes {_describe(hint)}, got "
                    f"{type(value).__name__} {value!r}. Write e.g. --set {name}=... with "
                    "a JSON value of that type."
                )

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Self:
        """Rebuild a configuration from :meth:`to_dict` output (e.g. a ``config.json``).

        JSON lists become tuples, as the fields are; unknown fields are an error.
        """
        cls._check_fields(
            values, ": the configuration was written by another experiment or fairacq version."
        )
        return cls(**{k: lists_to_tuples(v) for k, v in values.items()})

    @classmethod
    def _check_fields(cls, values: dict[str, Any], hint: str) -> None:
        """Raise naming the first key of ``values`` that is no field.

        ``hint`` follows in the message; ``{fields}`` in it lists the fields.
        """
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - names)
        if unknown:
            fields = ", ".join(sorted(names))
            raise InvalidParameterError(
                f"{cls.__name__} has no field {unknown[0]!r}" + hint.format(fields=fields)
            )

    def to_dict(self) -> dict[str, Any]:
        """Return the configuration as a plain dict."""
        return dataclasses.asdict(self)


def lists_to_tuples(value: Any) -> Any:
    """Turn lists (nested too) into tuples, as configuration fields hold sequences."""
    return tuple(lists_to_tuples(v) for v in value) if isinstance(value, list) else value


def _admits(hint: Any, value: Any) -> bool:
    """Whether ``value`` fits the annotation ``hint`` (unknown annotations admit anything)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if origin in (Union, types.UnionType):
        return any(_admits(arg, value) for arg in args)
    if origin is Literal:
        return value in args
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_admits(args[0], v) for v in value)
        return not args or (len(args) == len(value) and all(map(_admits, args, value)))
    simple = {bool: (bool,), int: (int,), float: (int, float), str: (str,)}
    if hint in simple:
        numeric_bool = isinstance(value, bool) and hint is not bool
        return isinstance(value, simple[hint]) and not numeric_bool
    return True


def _describe(hint: Any) -> str:
    """Return a readable annotation (``int``, ``tuple[str, ...]``, ``int | None``)."""
    if typing.get_origin(hint) is None and hasattr(hint, "__name__"):
        return str(hint.__name__)
    return str(hint).replace("typing.", "")
