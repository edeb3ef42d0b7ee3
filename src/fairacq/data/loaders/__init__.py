"""Real datasets as :class:`~fairacq.data.FairDataset` objects, by name or by loader.

Every loader returns numeric features (categoricals one-hot encoded; ``feature_groups`` maps
each original attribute to its columns, so one acquisition buys a whole attribute), the label
the papers use, the raw values of all the dataset's sensitive attributes (kept out of ``X``
unless ``include_sensitive_features=True``), the conventional privileged group and the
provenance in ``metadata``.

Adult, COMPAS, German credit and Bank Marketing are bundled. Give Me Some Credit, the Taiwan
credit data, MovieLens 100K and the ACS tasks (through ``folktables``) are read from the local
data directory, :func:`data_dir` (``$FAIRACQ_DATA``); :func:`fetch_dataset` downloads the
fetchable ones with sha256 verification, and for the others (and the paper authors' files
in :data:`AUTHOR_FILES`) says what to download by hand (:data:`MANUAL_DOWNLOADS`).
Entry points: :func:`list_datasets`, :func:`dataset_info`, :func:`describe_datasets`,
:func:`load_dataset`, the ``load_*`` functions and :func:`one_hot_encode`. See
``docs/datasets.md``.
"""

from __future__ import annotations

from fairacq.data.loaders._build import build_dataset, check_option, resolve_sensitive
from fairacq.data.loaders._catalogue import CATALOGUE, DatasetInfo
from fairacq.data.loaders._describe import dataset_needs, describe_dataset, describe_datasets
from fairacq.data.loaders._encode import one_hot_encode
from fairacq.data.loaders._fetch import (
    ACS_REMOTE_FILES,
    REMOTE_FILES,
    FetchPlan,
    RemoteFile,
    fetch_dataset,
    plan_fetch,
)
from fairacq.data.loaders._manual import (
    AUTHOR_FILES,
    MANUAL_DOWNLOADS,
    AuthorFiles,
    ManualDownload,
)
from fairacq.data.loaders._paths import (
    DatasetNotFoundError,
    bundled_file,
    cache_dir,
    data_dir,
    find_local_file,
)
from fairacq.data.loaders._registry import (
    dataset_info,
    is_available_offline,
    list_datasets,
    load_dataset,
)
from fairacq.data.loaders.datasets._acs import ACS_TASKS, STATE_CODES, acs_relpath, load_acs
from fairacq.data.loaders.datasets._adult import load_adult
from fairacq.data.loaders.datasets._bank import load_bank_marketing
from fairacq.data.loaders.datasets._compas import load_compas
from fairacq.data.loaders.datasets._credit import load_give_me_some_credit
from fairacq.data.loaders.datasets._german import load_german
from fairacq.data.loaders.datasets._movielens import (
    MovieLens100k,
    load_movielens_100k,
    load_movielens_ratings,
)
from fairacq.data.loaders.datasets._taiwan import load_taiwan_credit

__all__ = [
    "ACS_REMOTE_FILES",
    "ACS_TASKS",
    "AUTHOR_FILES",
    "CATALOGUE",
    "MANUAL_DOWNLOADS",
    "REMOTE_FILES",
    "STATE_CODES",
    "AuthorFiles",
    "DatasetInfo",
    "DatasetNotFoundError",
    "FetchPlan",
    "ManualDownload",
    "MovieLens100k",
    "RemoteFile",
    "acs_relpath",
    "build_dataset",
    "bundled_file",
    "cache_dir",
    "check_option",
    "data_dir",
    "dataset_info",
    "dataset_needs",
    "describe_dataset",
    "describe_datasets",
    "fetch_dataset",
    "find_local_file",
    "is_available_offline",
    "list_datasets",
    "load_acs",
    "load_adult",
    "load_bank_marketing",
    "load_compas",
    "load_dataset",
    "load_german",
    "load_give_me_some_credit",
    "load_movielens_100k",
    "load_movielens_ratings",
    "load_taiwan_credit",
    "one_hot_encode",
    "plan_fetch",
    "resolve_sensitive",
]
