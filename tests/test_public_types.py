"""No ``Any`` in a public signature where a real type exists (a ratchet).

Walks every public callable (the functions of ``tests/public_api.txt`` and the public methods
and ``__init__`` of its classes) and fails on an annotation that holds ``Any``, except:

- ``*args: Any`` and ``**kwargs: Any`` (options passed on to another callable);
- ``dict[str, Any]`` / ``Mapping[str, Any]`` / ``MutableMapping[str, Any]``: JSON-like
  settings, state and metadata;
- the short :data:`ALLOWED` list below, each entry with the reason no real type fits.

An allowed entry that no longer holds ``Any`` fails too, so the list cannot go stale: remove
it when you type the parameter.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from fairacq._typing import AdmissionRule, Classifier, Estimator, Model, Predictor

SNAPSHOT = Path(__file__).with_name("public_api.txt")

#: JSON-like mappings: the one ``Any`` a signature may hold.
_JSON_LIKE = re.compile(r"\b(?:dict|Mapping|MutableMapping)\[str, (?:typing\.)?Any\]")
_ANY = re.compile(r"\bAny\b")

#: Public callable -> parameters (``"return"`` for the result) allowed to hold ``Any``.
ALLOWED: dict[str, frozenset[str]] = {
    # A trace cell: a float, an int, a string, a list of row ids or None, by column; callers
    # know their column's type (``int(trace.final("n_admitted"))``).
    "fairacq.Trace.final": frozenset({"return"}),
    # fairlearn's fitted rules (untyped), fairacq's threshold rules or a classifier: each
    # takes different ``predict`` arguments, chosen by the mitigation's name.
    "fairacq.models.MitigatedModel.__init__": frozenset({"model"}),
    # A formatter takes a table cell of any type (the rows are JSON-like records); a
    # ``Callable[[object], str]`` would refuse ``lambda v: f"{v:.2f}"`` typed on floats.
    "fairacq.reporting.html_table": frozenset({"formats"}),
}


def _public_callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    """Every public function, and every public method and ``__init__`` of a public class."""
    seen: set[int] = set()
    for full in SNAPSHOT.read_text(encoding="utf-8").split():
        module, _, attr = full.rpartition(".")
        obj = getattr(importlib.import_module(module), attr)
        if inspect.isclass(obj):
            members = [
                (f"{full}.{name}", getattr(member, "__func__", member))
                for name, member in vars(obj).items()
                if (name == "__init__" or not name.startswith("_"))
                and (inspect.isfunction(member) or isinstance(member, (classmethod, staticmethod)))
            ]
        elif inspect.isfunction(obj):
            members = [(full, obj)]
        else:
            continue
        for name, fn in members:
            if id(fn) not in seen:
                seen.add(id(fn))
                yield name, fn


def any_parameters(fn: Callable[..., Any]) -> set[str]:
    """The parameters (``"return"`` for the result) whose annotation holds a disallowed Any."""
    variadic = {
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    out = set()
    for name, annotation in getattr(fn, "__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else repr(annotation)
        if name not in variadic and _ANY.search(_JSON_LIKE.sub("", text)):
            out.add(name)
    return out


@pytest.fixture(scope="module")
def found() -> dict[str, set[str]]:
    """Each public callable with a disallowed Any, and where."""
    return {name: bad for name, fn in _public_callables() if (bad := any_parameters(fn))}


def test_no_any_in_public_signatures(found):
    unexpected = {
        name: sorted(bad - ALLOWED.get(name, frozenset()))
        for name, bad in found.items()
        if bad - ALLOWED.get(name, frozenset())
    }
    assert not unexpected, (
        f"Public signatures with Any where a real type should go: {unexpected}. Use the "
        "type (fairacq._typing has Classifier, LearnerLike, ArrayLike, GroupLabel...), or, "
        "if none fits, add the name to ALLOWED with the reason."
    )


def test_allowed_entries_still_hold_any(found):
    stale = {
        name: sorted(params - found.get(name, set()))
        for name, params in ALLOWED.items()
        if params - found.get(name, set())
    }
    assert not stale, f"ALLOWED names parameters that are typed now; remove them: {stale}"


def test_the_check_sees_any_and_allows_json_and_variadics():
    def typed(x: int, *args: Any, config: Mapping[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {}

    def loose(x: Any, y: list[Any], z: Mapping[str, list[Any]]) -> tuple[Any, int]:
        return x, 0

    assert any_parameters(typed) == set()
    assert any_parameters(loose) == {"x", "y", "z", "return"}


def test_the_walk_reaches_methods_and_dataclass_fields():
    names = {name for name, _ in _public_callables()}
    assert {"fairacq.Trace.plot", "fairacq.models.MitigatedModel.__init__"} <= names
    assert "fairacq.FairDataset.__init__" in names  # each function once, by its first name
    assert "fairacq.data.FairDataset.__init__" not in names


def test_a_scikit_learn_classifier_is_a_classifier():
    model = LogisticRegression()
    assert isinstance(model, Classifier)
    assert isinstance(model, Estimator)
    assert isinstance(model, Model)
    assert isinstance(model, Predictor)
    assert not isinstance(model, AdmissionRule)
    assert not isinstance("lr", Classifier)


def test_a_fitted_label_proxy_is_an_admission_rule():
    from fairacq.filtering import LabelProxy

    rng = np.random.default_rng(0)
    s = rng.integers(0, 2, 200)
    X = np.c_[s + rng.normal(0, 0.8, 200), rng.normal(size=200)]
    proxy = LabelProxy(predictor="tree", max_depth=2, random_state=0).fit(X, s)
    assert isinstance(proxy, AdmissionRule)
    assert not isinstance(proxy, Classifier)  # it has no predict_proba
