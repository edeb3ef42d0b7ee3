"""The dataset registry: list, describe and load datasets by name."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairacq._validation import check_known_params, did_you_mean
from fairacq.data._dataset import FairDataset
from fairacq.data.loaders._catalogue import CATALOGUE, DatasetInfo
from fairacq.data.loaders._paths import bundled_file
from fairacq.data.loaders._paths import data_dir as default_data_dir
from fairacq.data.loaders.datasets._acs import ACS_TASKS, load_acs
from fairacq.data.loaders.datasets._adult import load_adult
from fairacq.data.loaders.datasets._bank import load_bank_marketing
from fairacq.data.loaders.datasets._compas import load_compas
from fairacq.data.loaders.datasets._credit import load_give_me_some_credit
from fairacq.data.loaders.datasets._german import load_german
from fairacq.data.loaders.datasets._movielens import load_movielens_ratings
from fairacq.data.loaders.datasets._taiwan import load_taiwan_credit

__all__ = ["DatasetInfo", "dataset_info", "is_available_offline", "list_datasets", "load_dataset"]

_WHERE = "fairacq.data.list_datasets()"


def _acs_loader(task: str) -> Callable[..., FairDataset]:
    def load(**kwargs: Any) -> FairDataset:
        return load_acs(task, **kwargs)  # type: ignore[arg-type]

    load.__name__ = f"load_acs_{task}"
    return load


_LOADERS: dict[str, Callable[..., FairDataset]] = {
    "adult": load_adult,
    "compas": load_compas,
    "german": load_german,
    "bank-marketing": load_bank_marketing,
    "give-me-some-credit": load_give_me_some_credit,
    "taiwan-credit": load_taiwan_credit,
    "movielens-100k": load_movielens_ratings,
    **{registry: _acs_loader(task) for task, (registry, _) in ACS_TASKS.items()},
}


def list_datasets() -> list[DatasetInfo]:
    """Return the description of every dataset fairacq can load.

    Returns
    -------
    list of DatasetInfo
        Bundled datasets first, then those read from the local data directory.

    Examples
    --------
    >>> [d.name for d in list_datasets()][:4]
    ['adult', 'compas', 'german', 'bank-marketing']
    """
    return list(CATALOGUE.values())


def dataset_info(name: str) -> DatasetInfo:
    """Return the description of one dataset.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"adult"``.

    Returns
    -------
    DatasetInfo

    Raises
    ------
    UnknownNameError
        For an unknown name, suggesting the closest one.

    Examples
    --------
    >>> dataset_info("bank-marketing").sensitive_attributes
    ('job', 'age')
    """
    if name not in CATALOGUE:
        raise did_you_mean("dataset", name, CATALOGUE, _WHERE)
    return CATALOGUE[name]


def load_dataset(name: str, **kwargs: Any) -> FairDataset:
    """Load a dataset by registry name, passing keyword arguments to its loader.

    ``"adult"`` -> :func:`load_adult`, ``"compas"`` -> :func:`load_compas`, ``"german"`` ->
    :func:`load_german`, ``"bank-marketing"`` -> :func:`load_bank_marketing`,
    ``"give-me-some-credit"`` -> :func:`load_give_me_some_credit`, ``"taiwan-credit"`` ->
    :func:`load_taiwan_credit`, ``"movielens-100k"`` -> :func:`load_movielens_ratings`, and
    ``"acs-income"``, ``"acs-public-coverage"``, ``"acs-mobility"``, ``"acs-employment"`` ->
    :func:`load_acs` with the matching task.

    Parameters
    ----------
    name : str
        Registry name (see :func:`list_datasets`).
    **kwargs
        Keyword arguments of the loader, e.g. ``sensitive="race"``.

    Returns
    -------
    FairDataset

    Raises
    ------
    UnknownNameError
        For an unknown name, suggesting the closest one.
    """
    if name not in _LOADERS:
        raise did_you_mean("dataset", name, _LOADERS, _WHERE)
    # an ACS loader passes its task itself: the keywords are load_acs's others
    loader = load_acs if name.startswith("acs-") else _LOADERS[name]
    takes = [p for p in inspect.signature(loader).parameters if p != "task"]
    check_known_params(f"load_dataset: dataset {name!r}", kwargs, takes)
    return _LOADERS[name](**kwargs)


def is_available_offline(name: str, data_dir: str | os.PathLike[str] | None = None) -> bool:
    """Return whether a dataset can be loaded without a download.

    Bundled datasets always can. The others need their files in the data directory (a
    gzipped or plain copy); for the ACS tasks, the default state's file (Wyoming).

    Parameters
    ----------
    name : str
        Registry name.
    data_dir : path-like or None, default=None
        Data directory to check; ``None`` means :func:`fairacq.data.data_dir`.

    Returns
    -------
    bool

    Raises
    ------
    UnknownNameError
        For an unknown name.

    Examples
    --------
    >>> is_available_offline("adult")
    True
    """
    info = dataset_info(name)
    if info.bundled:
        return all(bundled_file(f).is_file() for f in info.files)
    root = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    for rel in info.files:
        path = root / rel
        if not (path.is_file() or (rel.endswith(".gz") and path.with_suffix("").is_file())):
            return False
    return True
