"""Save and load a fitted proxy as plain JSON (no pickle, no individual's group label).

The file holds the prediction rule (arrays), feature names, group names, the in-sample
conditional distribution matrix ``A`` (aggregate shares), the proxy marginal, ``rho`` and
the target: enough to run Algorithm 2 (Deng et al., §3) on new candidates. A proxy for
intersecting group classes (App. A.2) also stores the class names and their groups. A
:class:`TableProxy` (fitted on a raw table) also stores, under ``"table"``, its
:class:`~fairacq.data.TableEncoder`, the column roles and the fit's report, each checked on
load against the proxy (a group column among the features is refused).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from fairacq._io import read_json, write_json
from fairacq.data._columns import TableColumns
from fairacq.data._encoder import TableEncoder
from fairacq.exceptions import CorruptFileError, InvalidDataError
from fairacq.filtering._membership import GroupClasses
from fairacq.filtering.proxies._proxies import FittedProxy, LabelProxy
from fairacq.filtering.proxies._rules import check_rule, rule_from_dict
from fairacq.filtering.proxies._table import TableProxy
from fairacq.filtering.proxies._tree import AlphaBetaProxy

__all__ = ["load_proxy", "proxy_from_dict", "proxy_to_dict", "save_proxy"]

_FORMAT = "fairacq-proxy"
_VERSION = 1


def proxy_to_dict(proxy: FittedProxy | TableProxy | LabelProxy | AlphaBetaProxy) -> dict[str, Any]:
    """Return a JSON-ready description of a fitted proxy.

    Parameters
    ----------
    proxy : FittedProxy, TableProxy or fitted proxy strategy
        E.g. a fitted :class:`LabelProxy` (its ``fitted_`` is used).

    Returns
    -------
    dict
        Plain lists, numbers and strings only.

    Raises
    ------
    InvalidDataError
        If ``proxy`` is not fitted, or its classifier has no JSON form.
    """
    if isinstance(proxy, TableProxy):
        table = {
            "encoder": proxy.encoder.to_dict(),
            "columns": proxy.columns.to_dict(),
            "report": dict(proxy.report),
        }
        return {**proxy_to_dict(proxy.proxy), "table": table}
    fitted: object = getattr(proxy, "fitted_", proxy)  # a strategy holds it in fitted_
    if not isinstance(fitted, FittedProxy):
        raise InvalidDataError(
            f"proxy_to_dict: expected a fitted proxy, got {type(proxy).__name__}. Call "
            "fit(X, s) first."
        )
    out: dict[str, Any] = {
        "format": _FORMAT,
        "version": _VERSION,
        "method": fitted.method,
        "rule": fitted.rule.to_dict(),
        "feature_names": list(fitted.feature_names),
        "groups": list(fitted.groups),
        "A": fitted.A.tolist(),
        "proxy_marginal": fitted.proxy_marginal.tolist(),
        "rho": fitted.rho.tolist(),
        "target": fitted.target.tolist(),
        "alpha": fitted.alpha,
        "beta": fitted.beta,
        "info": fitted.info,
    }
    if fitted.classes is not None:
        # Intersecting group classes (App. A.2): class names and their groups.
        out["classes"] = fitted.classes.to_dict()
    return out


def proxy_from_dict(data: dict[str, Any]) -> FittedProxy | TableProxy:
    """Rebuild a :class:`FittedProxy` (or :class:`TableProxy`) from :func:`proxy_to_dict`.

    Parameters
    ----------
    data : dict
        The description.

    Returns
    -------
    FittedProxy or TableProxy
        A :class:`TableProxy` when the description holds a ``"table"`` section.

    Raises
    ------
    CorruptFileError
        If the description is not a fairacq proxy or is incomplete.
    """
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise CorruptFileError(
            "load_proxy: this is not a fairacq proxy file (missing format tag). Save it "
            "with fairacq.filtering.save_proxy."
        )
    if data.get("version") != _VERSION:
        raise CorruptFileError(
            f"load_proxy: proxy format version {data.get('version')!r} is not supported "
            f"(expected {_VERSION}). Re-save it with this fairacq version."
        )
    try:
        fitted = FittedProxy(
            method=str(data["method"]),
            rule=rule_from_dict(data["rule"]),
            feature_names=tuple(str(c) for c in data["feature_names"]),
            groups=tuple(str(g) for g in data["groups"]),
            A=np.asarray(data["A"], dtype=np.float64),
            proxy_marginal=np.asarray(data["proxy_marginal"], dtype=np.float64),
            rho=np.asarray(data["rho"], dtype=np.float64),
            target=np.asarray(data["target"], dtype=np.float64),
            info=dict(data.get("info", {})),
            classes=(
                GroupClasses.from_dict(data["classes"])
                if data.get("classes") is not None
                else None
            ),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptFileError(
            f"load_proxy: the proxy file is incomplete ({exc!r}). Re-save the proxy."
        ) from exc
    if fitted.classes is not None and (
        fitted.classes.labels != fitted.groups or fitted.classes.n_columns != fitted.A.shape[-1]
    ):
        raise CorruptFileError(
            "load_proxy: the group classes in the proxy file do not match its groups or the "
            "columns of A. Re-save the proxy."
        )
    _check_values(fitted)
    check_rule(fitted.rule, len(fitted.feature_names), fitted.A.shape[0])
    if data.get("table") is not None:
        return _table_from_dict(fitted, data["table"])
    return fitted


def _columns_from_dict(data: Any) -> TableColumns:
    names = data.get("sensitive") if isinstance(data, dict) else None
    lists = [names, data.get("drop", [])] if isinstance(data, dict) else []
    ok = (
        isinstance(data, dict)
        and isinstance(data.get("label"), str)
        and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in lists)
        and bool(names)
        and all(data.get(k) is None or isinstance(data[k], str) for k in ("cost", "positive"))
    )
    if not ok:
        raise CorruptFileError(
            "load_proxy: the table's column roles are damaged (label, sensitive, drop, cost "
            "or positive of the wrong type). Fit the proxy again."
        )
    return TableColumns.from_dict(data)


def _table_from_dict(fitted: FittedProxy, data: Any) -> TableProxy:
    """Rebuild a :class:`TableProxy`, checking its encoder and roles against ``fitted``."""
    if not isinstance(data, dict) or not isinstance(data.get("report", {}), dict):
        raise CorruptFileError("load_proxy: the table section is damaged. Fit the proxy again.")
    try:
        encoder = TableEncoder.from_dict(data.get("encoder", {}))
    except InvalidDataError as exc:
        raise CorruptFileError(f"load_proxy: {exc}") from None
    columns = _columns_from_dict(data.get("columns"))
    fills = encoder.fill_values_
    problems = [
        (tuple(encoder.feature_names_) != fitted.feature_names,
         "the encoder's columns are not the proxy's features"),
        (bool(set(encoder.columns_) & set(columns.roles())),
         "a label or group column is among the proxy's features"),
        ((len(columns.sensitive) > 1) != (fitted.classes is not None)
         or (fitted.classes is not None and fitted.classes.names != columns.sensitive),
         "the group columns do not match the proxy's groups"),
        ((encoder.impute and set(fills) != set(encoder.columns_))
         or not all(isinstance(v, (str, int, float)) for v in fills.values()),
         "the encoder's fill values do not match its columns"),
    ]  # fmt: skip
    for bad, what in problems:
        if bad:
            raise CorruptFileError(f"load_proxy: {what}. Fit the proxy again.")
    return TableProxy(fitted, encoder, columns, dict(data.get("report", {})))


def _check_values(fitted: FittedProxy) -> None:
    """Refuse shapes and values a fitted proxy cannot have (a tampered or damaged file)."""
    A, r_hat, rho, target = fitted.A, fitted.proxy_marginal, fitted.rho, fitted.target
    n_values = A.shape[0] if A.ndim == 2 else -1
    problems = [
        (A.ndim != 2 or A.shape[1] < 2, "A must be a matrix with a column per group"),
        (r_hat.shape != (n_values,), "proxy_marginal needs one entry per row of A"),
        (rho.shape != (n_values,), "rho needs one entry per row of A"),
        (target.shape != (A.shape[-1],), "target needs one entry per column of A"),
    ]
    for bad, what in problems:
        if bad:
            raise CorruptFileError(f"load_proxy: {what}. Re-save the proxy.")
    checks = [
        ("rho", rho, np.all((rho >= 0) & (rho <= 1)), "admission probabilities in [0, 1]"),
        ("A", A, np.all((A >= 0) & (A <= 1)), "probabilities in [0, 1]"),
        ("proxy_marginal", r_hat, np.all(r_hat >= 0) and abs(r_hat.sum() - 1) < 1e-6,
         "a distribution (>= 0, summing to 1)"),
        ("target", target, np.all(target >= 0), "shares >= 0"),
    ]  # fmt: skip
    for name, values, ok, what in checks:
        if not (np.all(np.isfinite(values)) and ok):
            raise CorruptFileError(
                f"load_proxy: {name} must hold {what}; the file holds "
                f"{np.asarray(values).ravel()[:4].tolist()}... Re-save the proxy."
            )


def save_proxy(
    proxy: FittedProxy | TableProxy | LabelProxy | AlphaBetaProxy, path: str | os.PathLike[str]
) -> Path:
    """Write a fitted proxy to ``path`` as JSON (atomically).

    Parameters
    ----------
    proxy : FittedProxy, TableProxy or fitted proxy strategy
    path : str or path-like

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    InvalidDataError
        If ``proxy`` is not fitted, or its classifier has no JSON form (nothing is written).
    """
    out = Path(path)
    write_json(out, proxy_to_dict(proxy))
    return out


def load_proxy(path: str | os.PathLike[str]) -> FittedProxy | TableProxy:
    """Read a proxy written by :func:`save_proxy`.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    FittedProxy or TableProxy
        Ready for :class:`BalancedFilter` (a :class:`TableProxy`, fitted on a raw table,
        takes candidates' raw columns: see :func:`filter_table`).

    Raises
    ------
    CorruptFileError
        If the file is unreadable or not a proxy.
    """
    return proxy_from_dict(read_json(path))
