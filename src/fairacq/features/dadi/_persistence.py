"""DADI's model folder: write a fitted model and read it back, refusing torn or edited files.

A folder holds ``agent.pt`` and ``adversary.pt`` (state dicts, tensors only), ``config.json``
(parameters, columns, feature groups, scaling, group names, warnings, the fairacq version and
the sha256 of every other file) and the fit's :class:`~fairacq.Trace` (``trace.parquet`` +
``trace.json``, so ``Trace.load(folder / "trace")`` reads it like any run's trace). The
folder is built aside and swapped in whole, with a ``manifest.json`` listing every file's
sha256 (a load refuses a file edited or swapped since). Folders written before the manifest
or the trace were kept (a ``history.json`` instead) still load, without ``trace_``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from fairacq._artefact import MANIFEST, artefact_folder, check_manifest, file_matches, sha256_file
from fairacq._checkpoint import TRACE_NAME
from fairacq._io import read_json, write_json
from fairacq._trace import Trace
from fairacq._version import __version__
from fairacq.exceptions import CorruptFileError, InvalidDataError, InvalidParameterError
from fairacq.features.dadi._actions import ActionSpace
from fairacq.features.dadi._qlearning import load_tensors

if TYPE_CHECKING:
    from fairacq.features.dadi._params import DADIParams

__all__ = ["FORMAT", "load_model", "save_model"]

#: The ``format`` entry of a DADI model's ``config.json`` (its checkpoints add ".checkpoint").
FORMAT = "fairacq.features.DADI"
#: The layout of the model folder, in its ``manifest.json``.
MANIFEST_FORMAT = "dadi-model/1"
#: Files DADI writes itself, so never an ``extra_files`` name.
_OWN_FILES = frozenset({"config.json", f"{TRACE_NAME}.json", "history.json"})


def save_model(
    model: DADIParams, directory: str | os.PathLike[str], extra_files: Mapping[str, Any] | None
) -> None:
    """Write ``model`` into ``directory`` (see :meth:`DADI.save`).

    The folder is built aside and swapped in whole, with a ``manifest.json`` of every file's
    sha256; a folder holding anything but an earlier saved model is refused first.
    """
    model._check_fitted()
    path = Path(directory)
    extras = dict(extra_files or {})
    for name in extras:
        _check_file_name(name)
    _check_replaceable(path)
    with artefact_folder(path, format=MANIFEST_FORMAT) as building:
        for name, net in (("agent.pt", model.agent_), ("adversary.pt", model.adversary_)):
            torch.save(net.state_dict(), building / name)
        for name, content in extras.items():
            write_json(building / name, content)
        files = {n: sha256_file(building / n) for n in ("agent.pt", "adversary.pt", *extras)}
        config = {"format": FORMAT, "version": __version__, "files": files}
        write_json(building / "config.json", {**config, **_fitted_state(model)})
        trace = getattr(model, "trace_", None)
        if trace is not None:
            trace.save(building / TRACE_NAME)


def _check_replaceable(path: Path) -> None:
    """Refuse to save over a folder that holds anything but a model saved earlier."""
    if not path.exists():
        return
    if not path.is_dir():
        raise InvalidParameterError(f"DADI.save: {path} is a file. Pass a folder to save into.")
    names = {p.name for p in path.iterdir()}
    cfg = read_json(path / "config.json") if "config.json" in names else None
    listed = set(cfg.get("files") or {}) if isinstance(cfg, dict) else set()
    ours = listed | _OWN_FILES | {MANIFEST, f"{TRACE_NAME}.parquet"}
    foreign = sorted(names - ours) if cfg is not None or not names else sorted(names)
    if foreign:
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise InvalidParameterError(
            f"DADI.save: {path} holds files that are not a saved model ({shown}); saving "
            "replaces the folder whole, so pass a new or empty folder."
        )


def _fitted_state(model: DADIParams) -> dict[str, Any]:
    """Return the parameters and fitted values ``config.json`` keeps (JSON-ready)."""
    return {
        "params": model._json_params(),
        "columns": model.columns_,
        "feature_groups": model.feature_groups_,
        "group_names": list(model.group_names_),
        "n_groups": model.n_groups_,
        "scale_mean": model.scale_mean_.tolist(),
        "scale_std": model.scale_std_.tolist(),
        "group_weights": model.group_weights_.tolist(),
        "n_iter": model.n_iter_,
        "warnings": list(getattr(model, "warnings_", [])),
    }


def load_model(cls: type[DADIParams], directory: str | os.PathLike[str]) -> DADIParams:
    """Read a model written by :func:`save_model` (see :meth:`DADI.load`)."""
    path = Path(directory)
    cfg_path = path / "config.json"
    if not cfg_path.exists():
        raise CorruptFileError(
            f"{cfg_path} is missing: {path} holds no saved DADI model. Pass the directory "
            "given to DADI.save."
        )
    if (path / MANIFEST).is_file():  # every file as saved (older folders have none)
        check_manifest(path, formats={MANIFEST_FORMAT})
    cfg = read_json(cfg_path)
    try:
        model = _model_of(cls, cfg)
    except (KeyError, TypeError, ValueError, InvalidDataError) as exc:
        raise CorruptFileError(
            f"{cfg_path} is not a valid DADI configuration ({type(exc).__name__}: {exc}). "
            "Re-save the model."
        ) from exc
    _check_manifest(path, cfg.get("files"))
    model.saved_files_ = dict(cfg.get("files") or {})
    agent, adversary = model._networks(model.actions_, model.n_groups_, None)
    for name, net in (("agent.pt", agent), ("adversary.pt", adversary)):
        try:
            net.load_state_dict(load_tensors(path / name))
        except RuntimeError as exc:
            raise CorruptFileError(
                f"{path / name} does not match the network described in config.json "
                f"({str(exc).splitlines()[0]}). Re-save the model."
            ) from exc
        net.eval()
    model.agent_, model.adversary_ = agent, adversary
    if (path / f"{TRACE_NAME}.json").exists():
        model.trace_ = Trace.load(path / TRACE_NAME)
    return model


def _model_of(cls: type[DADIParams], cfg: Mapping[str, Any]) -> DADIParams:
    """Build the unfitted-network model that ``config.json`` describes."""
    if cfg["format"] != FORMAT:
        raise KeyError("format")
    names = set(cls._get_param_names())
    params = {k: v for k, v in dict(cfg["params"]).items() if k in names}
    if isinstance(params.get("random_state"), str):
        params["random_state"] = None
    model = cls(**params)
    actions = ActionSpace.from_groups(cfg["columns"], cfg["feature_groups"])
    model.columns_ = list(actions.columns)
    model.actions_ = actions
    model.feature_groups_ = {
        n: list(actions.action_columns(i)) for i, n in enumerate(actions.names)
    }
    model.group_names_ = tuple(str(g) for g in cfg["group_names"])
    model.n_groups_ = int(cfg["n_groups"])
    model.scale_mean_ = np.asarray(cfg["scale_mean"], dtype=np.float64)
    model.scale_std_ = np.asarray(cfg["scale_std"], dtype=np.float64)
    model.group_weights_ = np.asarray(cfg["group_weights"], dtype=np.float64)
    model.n_iter_ = int(cfg["n_iter"])
    model.warnings_ = [str(w) for w in cfg.get("warnings", [])]
    shape = (actions.n_columns,)
    if model.scale_mean_.shape != shape or model.scale_std_.shape != shape:
        raise KeyError("scale_mean/scale_std")
    _check_saved_values(model)
    return model


def _check_saved_values(model: DADIParams) -> None:
    """Refuse saved parameters or scaling that a fitted model cannot have (a tampered file).

    The parameters are checked against the constraints the constructor's users get; the
    scaling must be finite with positive spreads; the group weights finite and >= 0.
    """
    try:
        model._validate_params()
    except InvalidParameterError as exc:
        raise ValueError(str(exc)) from exc
    arrays = {
        "scale_mean": (model.scale_mean_, np.isfinite(model.scale_mean_)),
        "scale_std": (model.scale_std_, np.isfinite(model.scale_std_) & (model.scale_std_ > 0)),
        "group_weights": (model.group_weights_, np.isfinite(model.group_weights_)
                          & (model.group_weights_ >= 0)),
    }  # fmt: skip
    for name, (values, ok) in arrays.items():
        if not np.all(ok):
            bad = np.asarray(values).ravel()[~np.asarray(ok).ravel()][:3].tolist()
            raise ValueError(f"{name} holds values a fitted model cannot have: {bad}")
    if model.n_groups_ != len(model.group_names_) or model.n_groups_ < 2:
        raise ValueError(f"n_groups {model.n_groups_} does not match {model.group_names_}")


def _check_file_name(name: Any) -> None:
    """Refuse a model file name that is not a plain ``.json`` name of the model folder."""
    if (
        not isinstance(name, str)
        or Path(name).name != name
        or name.startswith(".")
        or not name.endswith(".json")
        or name in _OWN_FILES
    ):
        raise InvalidParameterError(
            f"DADI.save: extra file name {name!r} is not a plain .json file name (or is one "
            "DADI writes itself). Name a file such as 'encoder.json'."
        )


def _check_manifest(path: Path, files: Any) -> None:
    """Refuse network files that are not the ones saved with ``config.json``.

    A model saved before the manifest existed has none and is read as it is. Further files
    listed (the ``extra_files`` of :meth:`DADI.save`) are checked by whoever reads them.
    """
    if files is None:
        return
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise CorruptFileError(
            f"{path / 'config.json'} lists its files in a form DADI does not write. Re-save "
            "the model."
        )
    for name in ("agent.pt", "adversary.pt"):
        if not (path / name).is_file():
            raise CorruptFileError(
                f"{path / name} is missing: the model folder is incomplete. Copy the whole "
                "folder again, or re-save the model."
            )
        if not file_matches(path / name, files.get(name)):
            raise CorruptFileError(
                f"{path / name} is not the file saved with {path / 'config.json'} (its "
                "checksum differs): the model folder mixes two saves. Re-save the model."
            )
