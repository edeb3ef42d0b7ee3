"""Describe every dataset and authors' file set: where it is and what it still needs.

What ``fairacq datasets list`` and ``fairacq datasets describe`` print: the catalogue's
fields, whether the files are here (``available_offline``), and ``needs``: None when nothing
is missing, else one line saying how to get them (``fairacq datasets fetch NAME``, or what
to download by hand, from where, and where to save it).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from fairacq._validation import did_you_mean
from fairacq.data.loaders._catalogue import CATALOGUE
from fairacq.data.loaders._fetch import REMOTE_FILES
from fairacq.data.loaders._manual import AUTHOR_FILES, MANUAL_DOWNLOADS
from fairacq.data.loaders._registry import is_available_offline

__all__ = ["dataset_needs", "describe_dataset", "describe_datasets"]


def dataset_needs(name: str, data_dir: str | os.PathLike[str] | None = None) -> str | None:
    """Return what loading ``name`` still needs, in one line (None: nothing).

    Parameters
    ----------
    name : str
        A registry name or the name of an authors' file set (``"psl-compas"``).
    data_dir : path-like or None, default=None
        Data directory; None means :func:`fairacq.data.data_dir`.

    Raises
    ------
    UnknownNameError
        For an unknown name.
    """
    if name in AUTHOR_FILES:
        download = AUTHOR_FILES[name].download
        return None if download.is_present(data_dir) else download.instruction(data_dir)
    if name not in CATALOGUE:
        raise did_you_mean("dataset", name, [*CATALOGUE, *AUTHOR_FILES], "fairacq datasets list")
    if is_available_offline(name, data_dir):
        return None
    if name in MANUAL_DOWNLOADS:
        return MANUAL_DOWNLOADS[name].instruction(data_dir)
    if name in REMOTE_FILES:
        return f"a download: fairacq datasets fetch {name}"
    return f"a download: fairacq datasets fetch {name} (Wyoming; --state XX for others)"


def describe_dataset(name: str, data_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Return the JSON-ready description of one dataset or authors' file set.

    A registry dataset gets the fields of its :class:`DatasetInfo`; an authors' file set
    (``"psl-compas"``, ``"psl-paper-review"``) its title, description, papers, files and
    the commands that use it. Both get ``kind`` (``"dataset"`` or ``"authors' files"``),
    ``available_offline``, ``fetchable`` (``fairacq datasets fetch`` can download it) and
    ``needs`` (:func:`dataset_needs`).

    Raises
    ------
    UnknownNameError
        For an unknown name.
    """
    needs = dataset_needs(name, data_dir)
    if name in AUTHOR_FILES:
        files = AUTHOR_FILES[name]
        return {
            "name": name,
            "kind": "authors' files",
            "title": files.title,
            "description": files.description,
            "source_url": files.download.url,
            "bundled": False,
            "papers": list(files.papers),
            "used_by": list(files.used_by),
            "files": [files.download.target],
            "available_offline": needs is None,
            "fetchable": False,
            "needs": needs,
        }
    info = dataclasses.asdict(CATALOGUE[name])
    out = {k: list(v) if isinstance(v, tuple) else v for k, v in info.items()}
    fetchable = not out["bundled"] and name not in MANUAL_DOWNLOADS
    return {
        "name": name,
        "kind": "dataset",
        **out,
        "available_offline": needs is None,
        "fetchable": fetchable,
        "needs": needs,
    }


def describe_datasets(data_dir: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """Return :func:`describe_dataset` of every dataset, then of every authors' file set."""
    return [describe_dataset(name, data_dir) for name in [*CATALOGUE, *AUTHOR_FILES]]
