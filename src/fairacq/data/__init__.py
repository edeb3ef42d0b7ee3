"""Datasets: the validated :class:`FairDataset`, real-data loaders, generators and splits.

Every family consumes a :class:`FairDataset`: numeric features, a binary label, the raw
sensitive attributes and the group codes of the chosen attribute(s). Load real data by name
with :func:`load_dataset` (:func:`list_datasets` shows what exists and where it comes from;
Adult, COMPAS, German credit and Bank Marketing are bundled, the rest are read from
:func:`data_dir` and fetched with :func:`fetch_dataset`). :mod:`fairacq.data.synthetic`
holds the papers' generators, :mod:`fairacq.data.relational` the relational data sets of
Zhang & Ramesh (:class:`RelationalData`: predicate tables and fairness groups, and their loaders),
the ``split_*`` functions the papers' train/test/pool splits, and :func:`load_toy` a tiny
dataset for examples. :func:`read_table` reads a user's Parquet or CSV file (one error shape
for a missing, empty, corrupt or unsupported file), :func:`read_dataset` reads one as a
:class:`FairDataset` and :func:`write_table` writes one.

Importing this package is cheap: every public name loads its submodule on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairacq._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from fairacq.data import relational, splits, synthetic
    from fairacq.data._columns import (
        PreparedTable,
        TableColumns,
        as_fair_dataset,
        columns_from_options,
        encode_label,
        prepare_table,
    )
    from fairacq.data._dataset import FairDataset, encode_groups
    from fairacq.data._encoder import TableEncoder
    from fairacq.data._table import (
        TABLE_SUFFIXES,
        check_table_file,
        dataset_from_frame,
        read_dataset,
        read_table,
        write_table,
    )
    from fairacq.data._toy import load_toy
    from fairacq.data._transform import standardize
    from fairacq.data.loaders import (
        DatasetInfo,
        DatasetNotFoundError,
        MovieLens100k,
        cache_dir,
        data_dir,
        dataset_info,
        fetch_dataset,
        is_available_offline,
        list_datasets,
        load_acs,
        load_adult,
        load_bank_marketing,
        load_compas,
        load_dataset,
        load_german,
        load_give_me_some_credit,
        load_movielens_100k,
        load_movielens_ratings,
        load_taiwan_credit,
        one_hot_encode,
    )
    from fairacq.data.relational import RelationalData
    from fairacq.data.splits import (
        DataSiftSplit,
        TrainTestSplit,
        TrainValTestSplit,
        kfold_splits,
        split_dadi,
        split_datasift,
        split_filtering,
        split_parts,
        split_train_val_test,
    )

__all__ = [
    "TABLE_SUFFIXES",
    "DataSiftSplit",
    "DatasetInfo",
    "DatasetNotFoundError",
    "FairDataset",
    "MovieLens100k",
    "PreparedTable",
    "RelationalData",
    "TableColumns",
    "TableEncoder",
    "TrainTestSplit",
    "TrainValTestSplit",
    "as_fair_dataset",
    "cache_dir",
    "check_table_file",
    "columns_from_options",
    "data_dir",
    "dataset_from_frame",
    "dataset_info",
    "encode_groups",
    "encode_label",
    "fetch_dataset",
    "is_available_offline",
    "kfold_splits",
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
    "load_toy",
    "one_hot_encode",
    "prepare_table",
    "read_dataset",
    "read_table",
    "relational",
    "split_dadi",
    "split_datasift",
    "split_filtering",
    "split_parts",
    "split_train_val_test",
    "splits",
    "standardize",
    "synthetic",
    "write_table",
]

# Public name -> the submodule that defines it, imported on first access.
_LAZY = {
    "as_fair_dataset": "fairacq.data._columns",
    "PreparedTable": "fairacq.data._columns",
    "TableColumns": "fairacq.data._columns",
    "columns_from_options": "fairacq.data._columns",
    "encode_label": "fairacq.data._columns",
    "prepare_table": "fairacq.data._columns",
    "TableEncoder": "fairacq.data._encoder",
    "cache_dir": "fairacq.data.loaders",
    "check_table_file": "fairacq.data._table",
    "data_dir": "fairacq.data.loaders",
    "dataset_from_frame": "fairacq.data._table",
    "dataset_info": "fairacq.data.loaders",
    "DatasetInfo": "fairacq.data.loaders",
    "DatasetNotFoundError": "fairacq.data.loaders",
    "DataSiftSplit": "fairacq.data.splits",
    "encode_groups": "fairacq.data._dataset",
    "FairDataset": "fairacq.data._dataset",
    "fetch_dataset": "fairacq.data.loaders",
    "is_available_offline": "fairacq.data.loaders",
    "kfold_splits": "fairacq.data.splits",
    "list_datasets": "fairacq.data.loaders",
    "load_acs": "fairacq.data.loaders",
    "load_adult": "fairacq.data.loaders",
    "load_bank_marketing": "fairacq.data.loaders",
    "load_compas": "fairacq.data.loaders",
    "load_dataset": "fairacq.data.loaders",
    "load_german": "fairacq.data.loaders",
    "load_give_me_some_credit": "fairacq.data.loaders",
    "load_movielens_100k": "fairacq.data.loaders",
    "load_movielens_ratings": "fairacq.data.loaders",
    "load_taiwan_credit": "fairacq.data.loaders",
    "load_toy": "fairacq.data._toy",
    "loaders": "fairacq.data.loaders",
    "MovieLens100k": "fairacq.data.loaders",
    "one_hot_encode": "fairacq.data.loaders",
    "read_dataset": "fairacq.data._table",
    "read_table": "fairacq.data._table",
    "relational": "fairacq.data.relational",
    "RelationalData": "fairacq.data.relational._relational_data",
    "split_dadi": "fairacq.data.splits",
    "split_datasift": "fairacq.data.splits",
    "split_filtering": "fairacq.data.splits",
    "split_parts": "fairacq.data.splits",
    "split_train_val_test": "fairacq.data.splits",
    "splits": "fairacq.data.splits",
    "standardize": "fairacq.data._transform",
    "synthetic": "fairacq.data.synthetic",
    "TABLE_SUFFIXES": "fairacq.data._table",
    "TrainTestSplit": "fairacq.data.splits",
    "TrainValTestSplit": "fairacq.data.splits",
    "write_table": "fairacq.data._table",
}

__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, __all__)
