"""The common checks every public fairacq strategy passes (fairacq's ``check_estimator``).

A :class:`Spec` says how to build a small instance of one strategy class and run it on tiny
data. Each ``check_*`` function tests one idea on a spec; :func:`yield_checks` lists those
that apply to it (``tests/test_common_strategies.py`` holds the table of specs and runs
them). :func:`public_strategies` finds every class the battery must cover.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import math
import pickle
import pkgutil
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, clone

import fairacq
from fairacq import CheckpointCallback, Trace, TraceRecorder
from fairacq._base import Strategy
from fairacq._validation import HasMethods, Interval, Options, _satisfies
from fairacq.exceptions import InvalidParameterError

Check = Callable[..., None]


# -- discovery ----------------------------------------------------------------------------
@cache
def public_strategies() -> dict[type[Strategy], str]:
    """Return every ``Strategy`` subclass a public fairacq module exports, with its path."""
    names = ["fairacq"] + [
        info.name
        for info in pkgutil.walk_packages(fairacq.__path__, "fairacq.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    found: dict[type[Strategy], str] = {}
    for name in sorted(names, key=lambda n: (n.count("."), n)):
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr, None)
            if inspect.isclass(obj) and issubclass(obj, Strategy) and obj is not Strategy:
                found.setdefault(obj, f"{name}.{attr}")
    return found


# -- the table row ------------------------------------------------------------------------
@dataclass(eq=False)
class Spec:
    """How to build a small instance of one strategy class and run it (a row of the battery).

    Attributes
    ----------
    cls : type
        The strategy class.
    make : callable
        ``make()`` returns a small, valid, seeded instance.
    run : callable
        ``run(strategy, **resume)`` calls the class's verb on tiny data and returns what the
        verb returned (``fit``: the strategy itself; a stream: the admitted chunks).
        ``resume`` holds ``callbacks`` and ``continue_from``, passed only by the resume check.
    decisions : callable
        ``decisions(strategy, output)``: what the run decided, compared by :func:`assert_same`.
    random : bool, default=True
        Whether another seed changes the run (the table comments a False).
    seed_changes_decisions : bool or None, default=None
        Whether another seed changes ``decisions`` too (None: as ``random``).
    trace : bool, default=True
        Whether the run sets ``trace_``.
    stepwise : bool, default=True
        Whether the run goes step by step, so that it can be interrupted and resumed from
        a checkpoint. False for a fit done in one go: its verb still takes ``callbacks``
        (called once, after the fit) and ``continue_from`` (refused: nothing to resume).
    resume_steps : tuple of int, default=(1, 2, 4)
        The steps ``k`` at which the resume check interrupts a run.
    resume_tail : bool, default=False
        A resumed run returns only what comes after the checkpoint (one decision per step):
        compare it with the uninterrupted run's decisions from that step on.
    save_load : callable or None, default=None
        ``save_load(fitted, folder)`` writes the model with its own format and reads it back.
    predict : callable or None, default=None
        ``predict(model)``: predictions of a fitted or reloaded model.
    verb : str, default="fit"
        The method that does the work: ``fit`` (returns the strategy, fitted) for every row
        of the battery; ``filter_stream`` (a generator of admitted chunks) when
        ``tests/filtering/test_filter.py`` runs the checks on the balanced filter's streams.
    other_seed : dict, default={"random_state": 12345}
        Parameters of the "another seed" run.
    xfail : mapping of str to str, default={}
        Check name (or ``name-suffix``) -> reason, for checks expected to fail.
    """

    cls: type[Strategy]
    make: Callable[[], Strategy]
    run: Callable[..., Any]
    decisions: Callable[[Any, Any], Any]
    random: bool = True
    seed_changes_decisions: bool | None = None
    trace: bool = True
    stepwise: bool = True
    resume_steps: tuple[int, ...] = (1, 2, 4)
    resume_tail: bool = False
    save_load: Callable[[Any, Path], Any] | None = None
    predict: Callable[[Any], Any] | None = None
    verb: str = "fit"
    other_seed: dict[str, Any] = field(default_factory=lambda: {"random_state": 12345})
    xfail: Mapping[str, str] = field(default_factory=dict)
    _runs: dict[str, tuple[Any, Any]] = field(default_factory=dict, init=False, repr=False)

    def xfail_reason(self, check_id: str) -> str | None:
        """Return why ``check_id`` is expected to fail (None: it must pass)."""
        return self.xfail.get(check_id) or self.xfail.get(check_id.split("-")[0])

    def fitted(self, which: str = "reference") -> tuple[Any, Any]:
        """Return ``(strategy, output)`` of one run, cached: ``reference``, ``again`` or ``other``.

        ``again`` repeats the reference run on a fresh instance; ``other`` uses ``other_seed``.
        Checks only read these objects.
        """
        if which not in self._runs:
            strategy = self.make()
            if which == "other":
                strategy.set_params(**self.other_seed)
            self._runs[which] = (strategy, self.run(strategy))
        return self._runs[which]


# -- comparing ----------------------------------------------------------------------------
def _is_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "dtype")


def _array_diff(a: Any, b: Any, where: str) -> str | None:
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape or x.dtype != y.dtype:
        return f"{where}: shape/dtype {x.shape} {x.dtype} != {y.shape} {y.dtype}"
    try:
        same = np.array_equal(x, y, equal_nan=True)
    except TypeError:  # strings or objects: no NaN to match
        same = np.array_equal(x, y)
    return None if same else f"{where}: arrays differ"


def difference(a: Any, b: Any, where: str = "value") -> str | None:
    """Describe the first difference between ``a`` and ``b`` (None: they are the same).

    Arrays, frames and tensors compare exactly (NaN equals NaN), containers element by
    element, estimators by type and parameters, traces with ``==``.
    """
    if isinstance(a, Trace) or isinstance(b, Trace):
        return None if a == b else f"{where}: traces differ"
    if _is_tensor(a) or _is_tensor(b):
        import torch

        ok = _is_tensor(a) and _is_tensor(b) and a.dtype == b.dtype and torch.equal(a, b)
        return None if ok else f"{where}: tensors differ"
    if isinstance(a, (pd.DataFrame, pd.Series)) or isinstance(b, (pd.DataFrame, pd.Series)):
        if type(a) is not type(b):
            return f"{where}: {type(a).__name__} != {type(b).__name__}"
        try:
            if isinstance(a, pd.DataFrame):
                pd.testing.assert_frame_equal(a, b)
            else:
                pd.testing.assert_series_equal(a, b)
        except AssertionError as exc:
            return f"{where}: {exc}"
        return None
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return _array_diff(a, b, where)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            return f"{where}: keys {sorted(map(str, a))} != {sorted(map(str, b))}"
        for key in a:
            found = difference(a[key], b[key], f"{where}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if type(a) is not type(b) or len(a) != len(b):
            return f"{where}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(a, BaseEstimator) and isinstance(b, BaseEstimator):
        if type(a) is not type(b):
            return f"{where}: {type(a).__name__} != {type(b).__name__}"
        return difference(a.get_params(deep=False), b.get_params(deep=False), where)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return None
    return None if bool(a == b) else f"{where}: {a!r} != {b!r}"


def assert_same(a: Any, b: Any, where: str = "value") -> None:
    """Assert that :func:`difference` finds none."""
    found = difference(a, b, where)
    assert found is None, found


# -- bad parameters -----------------------------------------------------------------------
def _interval_violations(c: Interval) -> list[Any]:
    step = 1 if c.type is int else 0.5
    out: list[Any] = [float("nan"), "1", True]
    if c.left is not None:
        out.append(int(c.left) - 1 if c.type is int else c.left - step)
        if c.closed in ("right", "neither"):
            out.append(int(c.left) if c.type is int else float(c.left))
    if c.right is not None:
        out.append(int(c.right) + 1 if c.type is int else c.right + step)
        if c.closed in ("left", "neither"):
            out.append(int(c.right) if c.type is int else float(c.right))
    if c.type is int:
        inside = c.left if c.left is not None else 0
        out.append(float(inside) + 0.5)  # a float inside the bounds: wrong type
    return out


def _violations(constraint: Any) -> list[Any]:
    """Values that break ``constraint`` (more may be added; the caller filters)."""
    if isinstance(constraint, Interval):
        return _interval_violations(constraint)
    if isinstance(constraint, Options):
        return ["__no_such_option__", 12345, []]
    if isinstance(constraint, HasMethods):
        return [object(), 7]
    if constraint == "random_state":
        return [-1, np.int64(-3), "0", 1.5]
    if constraint == "boolean":
        return ["yes", 1, 0.0]
    if constraint == "callable":
        return ["not callable", 3]
    if isinstance(constraint, type):
        return [object(), 1, "text"]
    return []


def invalid_values(accepted: list[Any]) -> list[Any]:
    """Values that satisfy none of the ``accepted`` constraints of one parameter."""
    candidates: list[Any] = [None, object()]
    for constraint in accepted:
        candidates += _violations(constraint)
    out: list[Any] = []
    seen: set[tuple[type, str]] = set()
    for value in candidates:
        if any(_satisfies(c, value) for c in accepted):
            continue
        key = (type(value), "" if type(value) is object else repr(value))
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out


# -- interrupting -------------------------------------------------------------------------
class Interrupted(Exception):
    """Raised by :func:`interrupt_at` to simulate a run killed mid-way."""


def interrupt_at(k: int) -> Callable[[TraceRecorder], None]:
    """Return a callback that raises :class:`Interrupted` once ``k`` steps are recorded."""

    def callback(recorder: TraceRecorder) -> None:
        if recorder.n_steps >= k:
            raise Interrupted

    return callback


def _error_of(call: Callable[[], Any]) -> Exception | None:
    """Return the exception ``call()`` raises (None: it returned)."""
    try:
        call()
    except Exception as exc:  # the caller judges what was raised
        return exc
    return None


# -- the checks ---------------------------------------------------------------------------
def check_init_keyword_only(spec: Spec, tmp_path: Path) -> None:
    """``__init__`` takes every hyper-parameter as a keyword-only argument."""
    params = inspect.signature(spec.cls.__init__).parameters
    loose = [n for n, p in params.items() if n != "self" and p.kind is not p.KEYWORD_ONLY]
    assert not loose, f"{spec.cls.__name__}.__init__: {loose} must be keyword-only"


def check_init_stores_params(spec: Spec, tmp_path: Path) -> None:
    """``__init__`` stores each argument unchanged under its name, defaults included."""
    params = spec.make().get_params(deep=False)
    rebuilt = spec.cls(**params)
    for name, value in params.items():
        assert getattr(rebuilt, name) is value, f"__init__ changed {name}={value!r}"
    signature = inspect.signature(spec.cls.__init__).parameters
    required = {n: params[n] for n, p in signature.items() if n != "self" and p.default is p.empty}
    default = spec.cls(**required)
    for name, param in signature.items():
        if name != "self" and param.default is not param.empty:
            assert getattr(default, name) is param.default, f"default of {name} not stored"


def check_every_param_constrained(spec: Spec, tmp_path: Path) -> None:
    """``_parameter_constraints`` names exactly the hyper-parameters."""
    params = set(spec.make().get_params(deep=False))
    constrained = set(spec.cls._parameter_constraints)
    assert not params - constrained, f"no constraint for {sorted(params - constrained)}"
    assert not constrained - params, f"constraints for unknown {sorted(constrained - params)}"


def check_clone_round_trip(spec: Spec, tmp_path: Path) -> None:
    """``clone``, ``get_params`` and ``set_params`` give back the same parameters."""
    strategy = spec.make()
    params = strategy.get_params(deep=False)
    cloned = clone(strategy)
    assert type(cloned) is spec.cls
    assert_same(cloned.get_params(deep=False), params, "clone")
    assert_same(spec.cls(**params).get_params(), strategy.get_params(), "rebuilt")
    assert cloned.set_params(**params) is cloned
    assert_same(cloned.get_params(deep=False), params, "set_params")


def check_fit_returns_self(spec: Spec, tmp_path: Path) -> None:
    """``fit`` returns the strategy itself, fitted (scikit-learn's convention)."""
    strategy, output = spec.fitted()
    assert callable(getattr(spec.cls, "fit", None)), f"{spec.cls.__name__} has no fit"
    assert output is strategy, f"{spec.cls.__name__}.fit returned {type(output).__name__}"


def check_verb_resumes(spec: Spec, tmp_path: Path) -> None:
    """The verb takes ``continue_from=None`` and ``callbacks=()`` as keyword arguments."""
    params = inspect.signature(getattr(spec.cls, spec.verb)).parameters
    for name, default in (("continue_from", None), ("callbacks", ())):
        assert name in params, f"{spec.cls.__name__}.{spec.verb} takes no {name}"
        param = params[name]
        assert param.kind is param.KEYWORD_ONLY, f"{spec.verb}: {name} is not keyword-only"
        assert param.default == default, f"{spec.verb}: {name} defaults to {param.default!r}"


def check_one_shot_fit(spec: Spec, tmp_path: Path) -> None:
    """A fit done in one go calls its callbacks once, after the fit, and refuses to resume."""
    seen: list[dict[str, Any]] = []

    def callback(recorder: TraceRecorder) -> None:
        seen.append({"rows": recorder.n_steps, "checkpoint": recorder.checkpoint_requested})

    strategy = spec.make()
    spec.run(strategy, callbacks=[callback, CheckpointCallback(tmp_path / "ck", every=1000)])
    assert seen == [{"rows": len(strategy.trace_), "checkpoint": True}], seen
    saved = Trace.load(tmp_path / "ck").to_frame()
    assert_same(saved, strategy.trace_.to_frame(), "the checkpoint's rows")
    error = _error_of(lambda: spec.run(spec.make(), continue_from=strategy.trace_))
    assert isinstance(error, InvalidParameterError), f"continue_from gave {error!r}"
    assert "continue_from" in str(error), f"the refusal does not name continue_from: {error}"


def check_trace_after_verb(spec: Spec, tmp_path: Path) -> None:
    """After the verb, ``trace_`` is a :class:`~fairacq.Trace` with rows."""
    strategy, _ = spec.fitted()
    trace = getattr(strategy, "trace_", None)
    assert isinstance(trace, Trace), f"{spec.verb} left trace_={trace!r}"
    assert len(trace) > 0, f"{spec.verb} recorded an empty trace"


def check_run_keeps_params(spec: Spec, tmp_path: Path) -> None:
    """Running leaves every hyper-parameter as it was given."""
    expected = copy.deepcopy(spec.make().get_params(deep=False))
    strategy, _ = spec.fitted()
    assert_same(strategy.get_params(deep=False), expected, "params after the run")


def check_same_seed_same_decisions(spec: Spec, tmp_path: Path) -> None:
    """Two runs with the same parameters and seed decide the same."""
    first, first_out = spec.fitted()
    again, again_out = spec.fitted("again")
    assert_same(spec.decisions(again, again_out), spec.decisions(first, first_out), "decisions")


def check_same_seed_same_trace(spec: Spec, tmp_path: Path) -> None:
    """Two runs with the same parameters and seed record equal traces (``trace_``)."""
    first, _ = spec.fitted()
    again, _ = spec.fitted("again")
    assert isinstance(first.trace_, Trace)
    assert again.trace_ == first.trace_, "same seed gave a different trace"


def check_other_seed_other_trace(spec: Spec, tmp_path: Path) -> None:
    """Another seed records other steps (not only another seed in the metadata)."""
    first, _ = spec.fitted()
    other, _ = spec.fitted("other")
    steps = difference(other.trace_.to_frame(), first.trace_.to_frame())
    assert steps is not None, "another seed gave the same steps: is the seed ignored?"


def check_other_seed_other_decisions(spec: Spec, tmp_path: Path) -> None:
    """Another seed decides otherwise."""
    first, first_out = spec.fitted()
    other, other_out = spec.fitted("other")
    found = difference(spec.decisions(other, other_out), spec.decisions(first, first_out))
    assert found is not None, "another seed gave the same decisions: is the seed ignored?"


def check_trace_save_load(spec: Spec, tmp_path: Path) -> None:
    """The run's trace survives ``Trace.save`` then ``Trace.load``."""
    trace = spec.fitted()[0].trace_
    trace.save(tmp_path / "trace")
    assert Trace.load(tmp_path / "trace") == trace


def check_trace_pickle(spec: Spec, tmp_path: Path) -> None:
    """The run's trace survives pickling."""
    trace = spec.fitted()[0].trace_
    assert pickle.loads(pickle.dumps(trace)) == trace


def check_model_save_load(spec: Spec, tmp_path: Path) -> None:
    """The model saved and loaded with its own format predicts exactly as before."""
    assert spec.save_load is not None
    assert spec.predict is not None
    fitted, _ = spec.fitted()
    loaded = spec.save_load(fitted, tmp_path / "model")
    assert_same(spec.predict(loaded), spec.predict(fitted), "predictions after loading")


def check_invalid_params(spec: Spec, tmp_path: Path, *, name: str) -> None:
    """Every value breaking all of the parameter's constraints raises, naming it."""
    strategy = spec.make()
    assert name in spec.cls._parameter_constraints, f"{name} has no constraints"
    bad_values = invalid_values(spec.cls._parameter_constraints[name])
    assert bad_values, f"no invalid value could be built for {name}"
    wanted = re.escape(f"'{name}' parameter of {spec.cls.__name__}")
    for value in bad_values:
        broken = clone(strategy).set_params(**{name: value})
        error = _error_of(lambda: spec.run(broken))  # noqa: B023  # called at once
        if error is None:
            pytest.fail(f"{spec.cls.__name__}({name}={value!r}) ran without complaint")
        if not isinstance(error, InvalidParameterError):
            pytest.fail(f"{name}={value!r} raised {type(error).__name__}: {error}")
        assert re.search(wanted, str(error)), f"{name}={value!r}: {error} does not name it"


def check_resume_equals_uninterrupted(spec: Spec, tmp_path: Path, *, k: int) -> None:
    """A run interrupted at step ``k`` and resumed from its checkpoint equals a whole run."""
    full, full_out = spec.fitted()
    assert len(full.trace_) > k + 1, f"the reference run is too short to interrupt at {k}"
    folder = tmp_path / "ck"
    with pytest.raises(Interrupted):
        spec.run(spec.make(), callbacks=[CheckpointCallback(folder, every=1), interrupt_at(k)])
    partial = Trace.load(folder)
    assert partial != full.trace_, "the checkpoint holds the whole run"
    resumed = clone(spec.make())
    out = spec.run(resumed, continue_from=folder)
    at = resumed.trace_.meta.get("resumed_at_step")
    assert at == len(partial), f"resumed at step {at}, not after the checkpoint's {len(partial)}"
    assert resumed.trace_ == full.trace_, "the resumed trace differs"
    expected = spec.decisions(full, full_out)
    if spec.resume_tail:
        expected = expected[len(partial) :]
    assert_same(spec.decisions(resumed, out), expected, "resumed decisions")


def yield_checks(spec: Spec) -> Iterator[tuple[str, Check, dict[str, Any]]]:
    """Yield ``(id, check, keyword arguments)`` for every check that applies to ``spec``."""
    yield "check_init_keyword_only", check_init_keyword_only, {}
    yield "check_init_stores_params", check_init_stores_params, {}
    yield "check_every_param_constrained", check_every_param_constrained, {}
    yield "check_clone_round_trip", check_clone_round_trip, {}
    if spec.verb == "fit":
        yield "check_fit_returns_self", check_fit_returns_self, {}
    yield "check_run_keeps_params", check_run_keeps_params, {}
    yield "check_same_seed_same_decisions", check_same_seed_same_decisions, {}
    seeded = spec.random if spec.seed_changes_decisions is None else spec.seed_changes_decisions
    if seeded:
        yield "check_other_seed_other_decisions", check_other_seed_other_decisions, {}
    if spec.trace:
        yield "check_trace_after_verb", check_trace_after_verb, {}
        yield "check_same_seed_same_trace", check_same_seed_same_trace, {}
        if spec.random:
            yield "check_other_seed_other_trace", check_other_seed_other_trace, {}
        yield "check_trace_save_load", check_trace_save_load, {}
        yield "check_trace_pickle", check_trace_pickle, {}
    if spec.save_load is not None:
        yield "check_model_save_load", check_model_save_load, {}
    for name in sorted(spec.cls._get_param_names()):
        yield f"check_invalid_params-{name}", check_invalid_params, {"name": name}
    yield "check_verb_resumes", check_verb_resumes, {}
    if not spec.stepwise:
        yield "check_one_shot_fit", check_one_shot_fit, {}
    else:
        for k in spec.resume_steps:
            yield (
                f"check_resume_equals_uninterrupted-k{k}",
                check_resume_equals_uninterrupted,
                {"k": k},
            )


def check_strategy(spec: Spec, tmp_path: Path) -> None:
    """Run every check that applies to ``spec``, each in its own folder (``check_estimator``).

    A check named in ``spec.xfail`` must fail (strictly: one that passes is reported).
    """
    for check_id, check, kwargs in yield_checks(spec):
        folder = tmp_path / check_id
        folder.mkdir()
        reason = spec.xfail_reason(check_id)
        if reason is None:
            check(spec, folder, **kwargs)
            continue
        try:
            check(spec, folder, **kwargs)
        except (Exception, pytest.fail.Exception):
            continue
        pytest.fail(f"{check_id} passed although marked to fail ({reason}): remove the mark")
