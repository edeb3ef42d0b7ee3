"""What ``fairacq acquire`` runs on: a bundled dataset's split, or the user's own tables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairacq.cli.shared._errors import fail

if TYPE_CHECKING:
    from fairacq.data import TableColumns

__all__ = ["AcquireInputs", "UserFiles", "check_files", "load_inputs", "parse_size"]


def parse_size(text: str, total: float, option: str) -> int:
    """Read ``--budget``/``--batch``: a whole number, or ``N%`` of ``total`` (rounded, >= 1).

    Raises
    ------
    typer.Exit
        Code 2 on anything else, naming the forms accepted (:func:`fairacq._validation.read_size`).
    """
    from fairacq._validation import read_size
    from fairacq.exceptions import InvalidParameterError

    try:
        return read_size(
            text, total, name=option, unit="rows (or cost units)", rounding="round", minimum=1
        )
    except InvalidParameterError as exc:
        raise fail(str(exc)) from None


@dataclass
class UserFiles:
    """The user's own tables (``--data`` or ``--train/--val/--test``, and ``--pool``)."""

    pool: Path
    data: Path | None
    train: Path | None
    val: Path | None
    test: Path | None
    columns: TableColumns
    chunk_rows: int


@dataclass
class AcquireInputs:
    """Training, pool, validation and test parts, costs, and the pool's own rows."""

    train: Any
    pool: Any
    validation: Any
    test: Any
    costs: Any
    pool_frame: Any = None
    encoder: Any = None
    cost_name: str | None = None


def load_inputs(
    dataset: str,
    sensitive: str | None,
    bias: str,
    seed: int,
    files: UserFiles | None,
) -> AcquireInputs:
    """Return the run's data: a named dataset split as DataSift does, or the user's tables."""
    if files is None:
        from fairacq.data import load_dataset, split_datasift

        data = load_dataset(dataset, **({"sensitive": sensitive} if sensitive else {}))
        split = split_datasift(data, bias=bias, random_state=seed)  # type: ignore[arg-type]
        return AcquireInputs(split.train, split.pool, split.validation, split.test, None)
    return _user_inputs(files, seed)


def _user_inputs(files: UserFiles, seed: int) -> AcquireInputs:
    from fairacq.acquisition import read_pool
    from fairacq.cli.shared._data_options import read_user_table
    from fairacq.data import split_train_val_test

    columns = _without_cost(files.columns)
    if files.data is not None:
        table = read_user_table(files.data, columns, name=files.data.name)
        split = split_train_val_test(table.dataset, random_state=seed)
        train, val, test = split.train, split.validation, split.test
        encoder = table.encoder
    else:
        assert files.train is not None
        assert files.val is not None
        first = read_user_table(files.train, columns, name="train")
        train, encoder = first.dataset, first.encoder
        val = read_user_table(files.val, columns, encoder=encoder, name="validation").dataset
        test = None
        if files.test is not None:
            test = read_user_table(files.test, columns, encoder=encoder, name="test").dataset
    pool, costs = read_pool(
        files.pool, like=train, columns=files.columns, encoder=encoder, chunk_rows=files.chunk_rows
    )
    frame = None
    if not files.pool.name.lower().endswith((".parquet", ".pq")):
        from fairacq.data import read_table

        frame = read_table(files.pool)
    _check_pool_names(files.pool, frame)
    return AcquireInputs(train, pool, val, test, costs, frame, encoder, files.columns.cost)


def _check_pool_names(path: Path, frame: Any) -> None:
    """Refuse, before any work, pool columns that acquired.parquet's own columns would hide."""
    from fairacq.acquisition import check_pool_columns

    if frame is None:
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        names = pq.read_schema(path).names
    else:
        names = list(frame.columns)
    check_pool_columns(names, where=path.name)


def _without_cost(columns: TableColumns) -> TableColumns:
    """Return the roles in the rows you have: costs are the pool's (ignored there)."""
    from dataclasses import replace

    if columns.cost is None:
        return columns
    return replace(
        columns, cost=None, drop=(*columns.drop, columns.cost), optional=(columns.cost,)
    )


def check_files(
    pool: Path | None, data: Path | None, train: Path | None, val: Path | None
) -> None:
    """Exit 2 on file options that do not go together."""
    if pool is None:
        if data is not None or train is not None:
            raise fail(
                "--data/--train name the rows you have; acquire also needs --pool FILE, the "
                "candidate rows to choose from."
            )
        return
    if data is not None and (train is not None or val is not None):
        raise fail("Pass either --data (split for you) or --train and --val, not both.")
    if data is None and (train is None or val is None):
        raise fail(
            "--pool needs the rows you have: --data FILE (split 60/20/20 into training, "
            "validation and test), or --train and --val (and optionally --test)."
        )
