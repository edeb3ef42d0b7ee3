"""Observed and target atoms with truth values: the closed database that rules are grounded on.

Semantics follow PSL with a closed database:

* every predicate has a fixed arity; argument values are strings (numbers in frames are
  converted with ``str``);
* an **observed** atom has a value in [0, 1]; an atom of any predicate that is neither observed
  nor a target has value 0 (closed world);
* the **target** atoms (random variables) are exactly those listed in the targets frames.
  A predicate may be partly observed and partly target (PSL's "partially observed"
  predicates); an atom may not be both. An atom of a target predicate that is not listed is
  treated as a 0 observation, as PSL does when it grounds against a closed database;
* **truth** values of target atoms (for learning and evaluation) are kept apart and never
  used by grounding.

Internally every constant is coded once as an integer (one dictionary of constants for the
whole database) and every atom table is an integer array, so grounding joins integer keys
without touching strings. Each argument column is factorised on its own (strings and integers
directly, other columns after ``astype(str)``) and only the distinct values of the columns
are turned into strings and merged into the global dictionary.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from fairacq.exceptions import CorruptFileError, InvalidDataError, InvalidParameterError

if TYPE_CHECKING:
    from fairacq.data.relational import RelationalData

__all__ = ["Database"]

_IDENT_RE = re.compile(r"^[A-Za-z$_][A-Za-z0-9$_]*$")
_KEY_LIMIT = 2**62
_ROLES = ("observations", "targets", "truth")
_SMALL = 4096  # string columns up to this length are factorised as Python objects


class _Table:
    """Atoms of one predicate in one role: integer codes ``(n, arity)`` and values ``(n,)``."""

    __slots__ = ("codes", "values")

    def __init__(self, codes: NDArray[np.int64], values: NDArray[np.float64]) -> None:
        self.codes = codes
        self.values = values

    def __len__(self) -> int:
        return int(self.codes.shape[0])


class _Atoms:
    """Every atom of one predicate that grounding reads, observed rows first.

    Attributes
    ----------
    codes : ndarray of int64, shape (n, arity)
        Constant codes of the arguments.
    values : ndarray of float64, shape (n,)
        Value of an observed atom; NaN for a target atom.
    variables : ndarray of int64, shape (n,)
        Model variable index of a target atom; -1 for an observed atom.
    """

    __slots__ = ("codes", "values", "variables")

    def __init__(
        self, codes: NDArray[np.int64], values: NDArray[np.float64], variables: NDArray[np.int64]
    ) -> None:
        self.codes = codes
        self.values = values
        self.variables = variables

    def __len__(self) -> int:
        return int(self.codes.shape[0])


class _Parsed:
    """One validated frame: argument names, per-column codes and distinct values, values.

    ``codes[:, j]`` indexes ``uniques[j]`` (the distinct values of column ``j`` as str).
    """

    __slots__ = ("codes", "columns", "uniques", "values")

    def __init__(
        self,
        columns: list[Any],
        codes: NDArray[np.int64],
        uniques: list[NDArray[np.object_]],
        values: NDArray[np.float64] | None,
    ) -> None:
        self.columns = columns
        self.codes = codes
        self.uniques = uniques
        self.values = values


def _check_name(name: Any, where: str) -> str:
    if not isinstance(name, str) or not _IDENT_RE.match(name):
        raise InvalidDataError(
            f"{where}: predicate name {name!r} is not a PSL identifier (letters, digits, '_', "
            "'$'; not starting with a digit). Rename it so rules can refer to it."
        )
    return name


def _factorize_column(column: pd.Series) -> tuple[NDArray[np.int64], NDArray[np.object_]]:
    """Return the codes of one argument column (-1 where missing) and its values as ``str``.

    Columns of strings and of integers are factorised as they are (large string columns by
    pyarrow, small ones as Python objects, which costs less per call); any other column
    (floats, mixed objects) goes through ``astype(str)`` first, so ``1`` and ``1.0`` stay
    distinct constants, as they would be after converting every value with ``str``.
    """
    dtype = column.dtype
    if isinstance(dtype, pd.StringDtype) and len(column) > _SMALL:
        codes, uniques = pd.factorize(column)
        strings = np.asarray(uniques.to_numpy(dtype=object), dtype=object)
    elif pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
        codes, uniques = pd.factorize(column)
        strings = np.asarray(uniques.astype(str).to_numpy(dtype=object), dtype=object)
    else:
        values = column.to_numpy(dtype=object)
        if not isinstance(dtype, pd.StringDtype) and (
            pd.api.types.infer_dtype(values, skipna=True) != "string"
        ):
            missing = column.isna().to_numpy()
            values = column.astype(str).to_numpy(dtype=object)
            values[missing] = None
        codes, strings = pd.factorize(values)
    return np.asarray(codes, dtype=np.int64), np.asarray(strings, dtype=object)


def _split_frame(frame: Any, predicate: str, role: str, *, value_required: bool) -> _Parsed:
    """Validate one frame; return its argument names, local codes and values (or None)."""
    where = f"Database: {role} of '{predicate}'"
    if not isinstance(frame, pd.DataFrame):
        raise InvalidDataError(
            f"{where}: expected a pandas DataFrame, got {type(frame).__name__}."
        )
    arg_cols = [c for c in frame.columns if c != "value"]
    if not arg_cols:
        raise InvalidDataError(
            f"{where}: no argument columns. Give the arguments in order, then a 'value' column."
        )
    factorized = [_factorize_column(col) for name, col in frame.items() if name != "value"]
    codes = np.column_stack([c for c, _ in factorized]).reshape(len(frame), len(arg_cols))
    uniques = [u for _, u in factorized]
    missing = (codes < 0).any(axis=1)
    if missing.any():
        rows = np.flatnonzero(missing)[:5].tolist()
        raise InvalidDataError(f"{where}: missing argument values in rows {rows}. Drop them.")
    values = _check_values(frame, where, value_required=value_required)
    if _has_duplicates(codes, uniques):
        keys = _row_keys(codes, max((len(u) for u in uniques), default=0))
        dup = pd.Series(keys).duplicated().to_numpy()
        row = int(np.flatnonzero(dup)[0])
        first = tuple(str(uniques[j][codes[row, j]]) for j in range(len(arg_cols)))
        raise InvalidDataError(
            f"{where}: {int(dup.sum())} duplicated atoms, e.g. {predicate}{first}. "
            "Each atom may be listed once; aggregate or drop duplicates."
        )
    return _Parsed(arg_cols, codes, uniques, values)


def _has_duplicates(codes: NDArray[np.int64], uniques: list[NDArray[np.object_]]) -> bool:
    """Whether two rows of ``codes`` are equal (``uniques[j]``: the values of column ``j``)."""
    n = len(codes)
    if len(uniques) == 1:
        return len(uniques[0]) < n
    keys = np.sort(_row_keys(codes, max(len(u) for u in uniques)))
    return bool(np.any(keys[1:] == keys[:-1]))


def _check_values(
    frame: pd.DataFrame, where: str, *, value_required: bool
) -> NDArray[np.float64] | None:
    """Return the ``value`` column as floats in [0, 1]; None when absent and not required."""
    if "value" not in frame.columns:
        if value_required:
            raise InvalidDataError(f"{where}: a 'value' column is required.")
        return None
    column = frame["value"]
    try:
        if column.dtype == np.float64:
            values = column.to_numpy()
        else:
            values = pd.to_numeric(column, errors="raise").to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidDataError(f"{where}: 'value' column is not numeric ({exc}).") from exc
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        rows = np.flatnonzero(bad)[:5].tolist()
        raise InvalidDataError(
            f"{where}: {int(bad.sum())} values outside [0, 1] or NaN (rows {rows}, e.g. "
            f"{values[rows[0]]!r}). Truth values must lie in [0, 1]; rescale them."
        )
    return values


def _merge_constants(
    parts: Sequence[_Parsed],
) -> tuple[NDArray[np.object_], list[NDArray[np.int64]]]:
    """Build one dictionary of constants for all frames and recode each frame into it.

    Only the distinct values of each column are hashed again, not every cell.
    """
    pieces = [u for part in parts for u in part.uniques]
    if not pieces:
        return np.zeros(0, dtype=object), [part.codes for part in parts]
    recode, constants = pd.factorize(np.concatenate(pieces))
    recode = np.asarray(recode, dtype=np.int64)
    out: list[NDArray[np.int64]] = []
    offset = 0
    for part in parts:
        columns = []
        for j, uniques in enumerate(part.uniques):
            columns.append(recode[offset + part.codes[:, j]])
            offset += len(uniques)
        out.append(np.column_stack(columns).reshape(part.codes.shape).astype(np.int64))
    return np.asarray(constants, dtype=object), out


class Database:
    """Observed atoms, target atoms and truth values for grounding rules.

    Build one with :meth:`from_frames`, :meth:`from_data`, :meth:`from_psl_dir` or
    :meth:`from_csv_dir`. See the module docstring for the closed-world semantics.

    Examples
    --------
    >>> import pandas as pd
    >>> db = Database.from_frames(
    ...     observations={"paper": pd.DataFrame({"p": ["p1", "p2"], "value": [1.0, 1.0]})},
    ...     targets={"accepted": pd.DataFrame({"p": ["p1", "p2"]})},
    ...     truth={"accepted": pd.DataFrame({"p": ["p1", "p2"], "value": [1.0, 0.0]})},
    ... )
    >>> db.n_targets, db.arity("accepted"), db.truth_vector().tolist()
    (2, 1, [1.0, 0.0])
    """

    def __init__(
        self,
        constants: NDArray[np.object_],
        arity: dict[str, int],
        argument_names: dict[str, tuple[str, ...]],
        observed: dict[str, _Table],
        targets: dict[str, _Table],
        truth: dict[str, _Table],
    ) -> None:
        self._constants = constants
        self._arity = arity
        self._argument_names = argument_names
        self._observed = observed
        self._targets = targets
        self._truth = truth
        offsets: dict[str, int] = {}
        total = 0
        for name, table in targets.items():
            offsets[name] = total
            total += len(table)
        self._offsets = offsets
        self._n_targets = total
        self._index: pd.Index | None = None
        self._order: tuple[NDArray[np.str_], NDArray[np.int64]] | None = None
        self._variables: pd.DataFrame | None = None
        self._cache: dict[tuple[str, bool], _Atoms] = {}
        self._keyed: dict[str, tuple[Any, ...]] = {}

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_frames(
        cls,
        observations: Mapping[str, pd.DataFrame],
        targets: Mapping[str, pd.DataFrame],
        truth: Mapping[str, pd.DataFrame] | None = None,
    ) -> Database:
        """Build a database from one DataFrame per predicate and role.

        Parameters
        ----------
        observations : mapping of str to pandas.DataFrame
            Observed atoms: argument columns in order, then ``value`` in [0, 1] (a frame
            without ``value`` means every listed atom is 1).
        targets : mapping of str to pandas.DataFrame
            Target atoms (argument columns; a ``value`` column, if present, is kept as the
            initial value of the atom). Their order, and the row order inside each frame,
            is the order of the model variables.
        truth : mapping of str to pandas.DataFrame or None, default=None
            Truth values of target atoms (argument columns then ``value``).

        Raises
        ------
        InvalidDataError
            For a predicate name that is not an identifier, values outside [0, 1], missing
            arguments, duplicated atoms, an atom both observed and target, or one predicate
            given with two arities.
        """
        if not isinstance(observations, Mapping) or not isinstance(targets, Mapping):
            raise InvalidDataError(
                "Database.from_frames: observations and targets must be mappings "
                "predicate -> DataFrame."
            )
        truth = {} if truth is None else truth
        if not isinstance(truth, Mapping):
            raise InvalidDataError("Database.from_frames: truth must be a mapping or None.")
        parsed: dict[str, dict[str, _Parsed]] = {role: {} for role in _ROLES}
        for role, frames in zip(_ROLES, (observations, targets, truth), strict=True):
            for name, frame in frames.items():
                _check_name(name, f"Database.from_frames ({role})")
                parsed[role][name] = _split_frame(
                    frame, name, role, value_required=(role == "truth")
                )
        arity: dict[str, int] = {}
        names: dict[str, tuple[str, ...]] = {}
        for role in _ROLES:
            for name, part in parsed[role].items():
                cols = part.columns
                if name in arity and arity[name] != len(cols):
                    raise InvalidDataError(
                        f"Database: predicate '{name}' has {arity[name]} arguments in one frame "
                        f"and {len(cols)} in its {role}. Use the same argument columns."
                    )
                arity.setdefault(name, len(cols))
                names.setdefault(name, tuple(str(c) for c in cols))
        for name in parsed["truth"]:
            if name not in parsed["targets"]:
                raise InvalidDataError(
                    f"Database: truth is given for '{name}', which has no target atoms. "
                    "Truth values belong to target predicates; list its atoms in targets."
                )
        order = [(role, name) for role in _ROLES for name in parsed[role]]
        constants, codes = _merge_constants([parsed[role][name] for role, name in order])
        tables: dict[str, dict[str, _Table]] = {role: {} for role in _ROLES}
        for (role, name), table_codes in zip(order, codes, strict=True):
            values = parsed[role][name].values
            if values is None:
                values = np.full(len(table_codes), 1.0 if role == "observations" else np.nan)
            tables[role][name] = _Table(table_codes, values)
        _check_disjoint(tables["observations"], tables["targets"], constants)
        return cls(
            constants, arity, names, tables["observations"], tables["targets"], tables["truth"]
        )

    @classmethod
    def from_data(cls, data: RelationalData) -> Database:
        """Build a database from :class:`~fairacq.data.relational.RelationalData`.

        The data's observations, targets and truth, as :meth:`from_frames` reads them.

        Examples
        --------
        >>> from fairacq.data.synthetic import make_paper_review
        >>> db = Database.from_data(make_paper_review(random_state=0))
        >>> db.target_predicates, db.n_targets
        (('positiveReviews', 'positiveSummary'), 300)
        """
        return cls.from_frames(data.observations, data.targets, data.truth)

    @classmethod
    def from_psl_dir(
        cls,
        path: str | Path,
        *,
        obs_suffix: str = "_obs",
        targets_suffix: str = "_targets",
        truth_suffix: str = "_truth",
        arities: Mapping[str, int] | None = None,
    ) -> Database:
        """Read PSL's layout: ``<predicate><suffix>.txt`` files, tab-separated, no header.

        ``foo_obs.txt`` holds observed atoms of ``foo``, ``foo_targets.txt`` its target atoms
        and ``foo_truth.txt`` their truth. The value column is optional (1.0 when absent);
        whether the last column is a value is decided by ``arities`` when given, else by the
        targets file of the predicate, else by :func:`_infer_arity` (a last column of numbers
        in [0, 1] that leaves no duplicated atom is a value). Files that match no suffix are
        ignored.

        Raises
        ------
        CorruptFileError
            If the directory holds no matching file or a file cannot be read.
        """
        root = Path(path)
        if not root.exists():
            raise CorruptFileError(
                f"{root} does not exist; pass the folder that holds the <pred>_obs.txt, "
                "<pred>_targets.txt and <pred>_truth.txt files."
            )
        if not root.is_dir():
            raise CorruptFileError(
                f"{root} is a file, not a folder; pass the folder that holds the "
                "<pred>_obs.txt, <pred>_targets.txt and <pred>_truth.txt files."
            )
        files: dict[str, dict[str, Path]] = {"obs": {}, "targets": {}, "truth": {}}
        for file in sorted(root.iterdir()):
            if file.suffix not in (".txt", ".tsv") or not file.is_file():
                continue
            for role, suffix in (
                ("obs", obs_suffix),
                ("targets", targets_suffix),
                ("truth", truth_suffix),
            ):
                if file.stem.endswith(suffix) and len(file.stem) > len(suffix):
                    files[role][file.stem[: -len(suffix)]] = file
                    break
        if not any(files.values()):
            raise CorruptFileError(
                f"Database.from_psl_dir: no '*{obs_suffix}.txt', '*{targets_suffix}.txt' or "
                f"'*{truth_suffix}.txt' files in {root}; write one file per predicate and role "
                "(`fairacq relational example` writes a folder to copy)."
            )
        known = dict(arities or {})
        raw = {
            role: {n: _read_table(p, "\t") for n, p in fs.items()} for role, fs in files.items()
        }
        _check_rule_arities(raw, files, arities or {})
        for name, table in raw["targets"].items():
            known.setdefault(name, table.shape[1])
        frames = {
            role: {n: _to_frame(t, n, known.get(n), files[role][n]) for n, t in tables.items()}
            for role, tables in raw.items()
        }
        targets = {n: f.drop(columns="value") for n, f in frames["targets"].items()}
        return cls.from_frames(frames["obs"], targets, frames["truth"])

    @classmethod
    def from_csv_dir(
        cls,
        path: str | Path,
        targets: Sequence[str],
        *,
        arities: Mapping[str, int] | None = None,
        sep: str = ",",
        suffix: str = ".txt",
    ) -> Database:
        """Read the Fair-A3SL authors' layout: one ``<predicate>.txt`` per predicate.

        Comma-separated, no header, the last column the truth value when there is one
        (``author.txt`` lists bare ids, ``positiveReviews.txt`` is ``reviewer,paper,value``).
        The predicates in ``targets`` become target atoms (every listed atom) with their
        values as truth; every other file is observed.

        Parameters
        ----------
        path : str or pathlib.Path
            The directory, e.g. ``fair-a3sl/biasedPaperReview/bias1``.
        targets : sequence of str
            Target predicates, e.g. ``["positiveSummary"]``.
        arities : mapping of str to int or None, default=None
            Arity of predicates whose files are ambiguous (e.g. ``user,instance`` pairs with
            0/1 instances); the rest are inferred (see :meth:`from_psl_dir`).
        sep : str, default=","
        suffix : str, default=".txt"

        Raises
        ------
        CorruptFileError
            If a file cannot be read, or a target has no file.
        """
        root = Path(path)
        if not root.is_dir():
            raise CorruptFileError(f"Database.from_csv_dir: {root} is not a directory.")
        if isinstance(targets, str):
            raise InvalidParameterError(
                "Database.from_csv_dir: targets must be a sequence of predicate names, "
                f"e.g. [{targets!r}], not a single string."
            )
        files = {p.name[: -len(suffix)]: p for p in sorted(root.glob(f"*{suffix}")) if p.is_file()}
        missing = [t for t in targets if t not in files]
        if missing:
            raise CorruptFileError(
                f"Database.from_csv_dir: no file for target predicate(s) {missing} in {root}. "
                f"Found: {sorted(files)}."
            )
        known = dict(arities or {})
        observations: dict[str, pd.DataFrame] = {}
        target_frames: dict[str, pd.DataFrame] = {}
        truth: dict[str, pd.DataFrame] = {}
        for name, file in files.items():
            frame = _to_frame(_read_table(file, sep), name, known.get(name), file)
            if name in targets:
                target_frames[name] = frame.drop(columns="value")
                truth[name] = frame
            else:
                observations[name] = frame
        ordered = {t: target_frames[t] for t in targets}
        return cls.from_frames(observations, ordered, {t: truth[t] for t in targets})

    # ------------------------------------------------------------------ public queries
    @property
    def predicates(self) -> dict[str, int]:
        """Every known predicate with its arity."""
        return dict(self._arity)

    @property
    def target_predicates(self) -> tuple[str, ...]:
        """Predicates with target atoms, in variable order."""
        return tuple(self._targets)

    @property
    def n_targets(self) -> int:
        """Number of target atoms (model variables)."""
        return self._n_targets

    def arity(self, predicate: str) -> int:
        """Arity of ``predicate``."""
        self._require(predicate)
        return self._arity[predicate]

    def is_closed(self, predicate: str) -> bool:
        """Whether ``predicate`` has no target atoms (fully observed)."""
        self._require(predicate)
        return predicate not in self._targets

    def argument_names(self, predicate: str) -> tuple[str, ...]:
        """Argument column names of ``predicate`` as first given."""
        self._require(predicate)
        return self._argument_names[predicate]

    def variables(self) -> pd.DataFrame:
        """One row per target atom: ``predicate`` and ``args`` (tuple of str), model order."""
        if self._variables is None:
            preds: list[str] = []
            args: list[tuple[str, ...]] = []
            for name, table in self._targets.items():
                preds.extend([name] * len(table))
                args.extend(map(tuple, self._constants[table.codes].tolist()))
            self._variables = pd.DataFrame(
                {"predicate": pd.Series(preds, dtype=object), "args": args}
            )
        return self._variables.copy()

    def variable_offset(self, predicate: str) -> int:
        """Index of the first model variable of ``predicate``."""
        if predicate not in self._offsets:
            raise InvalidParameterError(f"Database: '{predicate}' has no target atoms.")
        return self._offsets[predicate]

    def truth_vector(self) -> NDArray[np.float64]:
        """Truth value of every target atom in model order (NaN where no truth is known)."""
        out = np.full(self._n_targets, np.nan)
        for name, table in self._truth.items():
            pos = _match(self._targets[name].codes, table.codes)
            hit = pos >= 0
            out[self._offsets[name] + pos[hit]] = table.values[hit]
        return out

    def initial_values(self) -> NDArray[np.float64]:
        """Values given with the target atoms (NaN where none was given), model order."""
        if not self._targets:
            return np.zeros(0)
        return np.concatenate([t.values for t in self._targets.values()])

    def frame(self, predicate: str, role: str = "observations") -> pd.DataFrame:
        """Return the atoms of ``predicate`` in ``role`` ("observations", "targets", "truth").

        Columns: the argument names, then ``value``.
        """
        self._require(predicate)
        tables = {"observations": self._observed, "targets": self._targets, "truth": self._truth}
        if role not in tables:
            raise InvalidParameterError(
                f"Database.frame: role must be 'observations', 'targets' or 'truth', got {role!r}."
            )
        table = tables[role].get(predicate)
        cols = list(self._argument_names[predicate])
        if table is None:
            return pd.DataFrame({**{c: pd.Series(dtype=object) for c in cols}, "value": []})
        strings = self._constants[table.codes].astype(str)
        frame = pd.DataFrame(strings, columns=cols)
        frame["value"] = table.values
        return frame

    def to_frames(
        self,
    ) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame], dict[str, pd.DataFrame]]:
        """Return ``(observations, targets, truth)`` in the :meth:`from_frames` layout."""
        observations = {p: self.frame(p, "observations") for p in self._observed}
        targets = {}
        for p in self._targets:
            frame = self.frame(p, "targets")
            targets[p] = frame.drop(columns="value") if frame["value"].isna().any() else frame
        truth = {p: self.frame(p, "truth") for p in self._truth}
        return observations, targets, truth

    def with_observations(self, observations: Mapping[str, pd.DataFrame]) -> Database:
        """Return a database with extra (or replaced) observed predicates.

        Handy for group predicates that fairness filters read, e.g. ``protectedPaper(P)``.
        """
        obs, targets, truth = self.to_frames()
        obs.update(observations)
        return Database.from_frames(obs, targets, truth)

    def __repr__(self) -> str:
        n_obs = sum(len(t) for t in self._observed.values())
        return (
            f"Database({len(self._arity)} predicates, {n_obs} observed atoms, "
            f"{self._n_targets} target atoms over {list(self._targets)})"
        )

    # ------------------------------------------------------------------ grounding helpers
    def _require(self, predicate: str) -> None:
        if predicate not in self._arity:
            raise InvalidParameterError(
                f"Database: unknown predicate '{predicate}'. Known: {sorted(self._arity)}."
            )

    def _code(self, constant: str) -> int:
        """Integer code of a constant, -1 if it occurs nowhere in the data."""
        if self._index is None:
            self._index = pd.Index(self._constants, dtype=object)
        return int(self._index.get_indexer(pd.Index([constant], dtype=object))[0])

    def _string_order(self) -> tuple[NDArray[np.str_], NDArray[np.int64]]:
        """Return the constants sorted as strings and the rank ``2 * position + 1`` per code."""
        if self._order is None:
            strings = self._constants.astype(str)
            order = np.argsort(strings, kind="stable")
            rank = np.empty(len(strings), dtype=np.int64)
            rank[order] = 2 * np.arange(len(strings), dtype=np.int64) + 1
            self._order = (strings[order], rank)
        return self._order

    def _atoms(self, predicate: str, *, positive_only: bool = False) -> _Atoms:
        """All atoms of ``predicate``: observed atoms (value, variable -1), then targets.

        Target atoms have value NaN and their model index as variable. With
        ``positive_only``, observed atoms of value 0 are left out.
        """
        key = (predicate, positive_only)
        if key not in self._cache:
            self._cache[key] = self._build_atoms(predicate, positive_only)
        return self._cache[key]

    def _build_atoms(self, predicate: str, positive_only: bool) -> _Atoms:
        k = self._arity[predicate]
        codes = [np.zeros((0, k), dtype=np.int64)]
        values = [np.zeros(0)]
        variables = [np.zeros(0, dtype=np.int64)]
        obs = self._observed.get(predicate)
        if obs is not None and len(obs):
            keep = obs.values > 0 if positive_only else np.ones(len(obs), dtype=bool)
            codes.append(obs.codes[keep])
            values.append(obs.values[keep])
            variables.append(np.full(int(keep.sum()), -1, dtype=np.int64))
        tgt = self._targets.get(predicate)
        if tgt is not None and len(tgt):
            codes.append(tgt.codes)
            values.append(np.full(len(tgt), np.nan))
            variables.append(np.arange(len(tgt), dtype=np.int64) + self._offsets[predicate])
        if len(codes) == 2:
            return _Atoms(codes[1], values[1], variables[1])
        return _Atoms(np.concatenate(codes), np.concatenate(values), np.concatenate(variables))

    def _encode(self, codes: NDArray[np.int64]) -> NDArray[np.int64] | None:
        """One int64 key per row of codes (-1 allowed), or None if it could overflow."""
        base = len(self._constants) + 1
        k = codes.shape[1]
        if base ** max(k, 1) >= _KEY_LIMIT:
            return None
        key = codes[:, 0] + 1
        for j in range(1, k):
            key = key * base + (codes[:, j] + 1)
        return np.asarray(key, dtype=np.int64)

    def _positions(self, predicate: str, codes: NDArray[np.int64]) -> NDArray[np.int64]:
        """Row of :meth:`_atoms` holding each atom ``predicate(codes[i])`` (-1 when absent).

        Rows are found through a key index built once per predicate: a direct-address array
        when the keys span a small range, else a hash index.
        """
        if predicate not in self._keyed:
            table = self._atoms(predicate)
            key_t = self._encode(table.codes)
            span = (len(self._constants) + 1) ** self._arity[predicate]
            index: Any = None
            if key_t is not None and span <= max(8 * len(table), 1 << 18):
                index = np.full(span, -1, dtype=np.int64)
                index[key_t] = np.arange(len(table), dtype=np.int64)
            elif key_t is not None:
                index = pd.Index(key_t, copy=False)
            self._keyed[predicate] = (table, index)
        table, index = self._keyed[predicate]
        key_q = self._encode(codes)
        if index is None or key_q is None:
            return _match(table.codes, codes)
        if isinstance(index, np.ndarray):
            return np.asarray(index[key_q], dtype=np.int64)
        return np.asarray(index.get_indexer(pd.Index(key_q, copy=False)), dtype=np.int64)

    def _lookup_codes(
        self, predicate: str, codes: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Value and variable index of each atom ``predicate(codes[i])``; absent: (0, -1).

        Target atoms have value NaN.
        """
        n = len(codes)
        table = self._atoms(predicate)
        if len(table) == 0 or n == 0:
            return np.zeros(n), np.full(n, -1, dtype=np.int64)
        pos = self._positions(predicate, codes)
        hit = pos >= 0
        safe = np.where(hit, pos, 0)
        return (
            np.where(hit, table.values[safe], 0.0),
            np.where(hit, table.variables[safe], -1).astype(np.int64),
        )


def _check_disjoint(
    observed: Mapping[str, _Table], targets: Mapping[str, _Table], constants: NDArray[np.object_]
) -> None:
    """Raise if an atom is both observed and a target."""
    for name in set(observed) & set(targets):
        both = _match(observed[name].codes, targets[name].codes) >= 0
        if both.any():
            row = int(np.flatnonzero(both)[0])
            atom = tuple(str(c) for c in constants[targets[name].codes[row]])
            raise InvalidDataError(
                f"Database: atom {name}{atom} is both observed and a target "
                f"({int(both.sum())} such atoms). Remove it from one of the two."
            )


def _row_keys(codes: NDArray[np.int64], base: int) -> NDArray[np.int64]:
    """One int64 key per row of ``codes`` (integers in ``[-1, base - 1]``); equal iff rows are.

    Columns are combined in mixed radix ``base + 1``; before a column could overflow int64,
    the keys so far are renumbered densely.
    """
    n, k = codes.shape
    radix = base + 1
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for j in range(k):
        if span * radix >= _KEY_LIMIT:
            key = np.asarray(pd.factorize(key)[0], dtype=np.int64)
            span = int(key.max()) + 1 if n else 1
        key = key * radix + (codes[:, j] + 1)
        span *= radix
    return key


def _match(table: NDArray[np.int64], query: NDArray[np.int64]) -> NDArray[np.int64]:
    """Row of ``table`` equal to each row of ``query`` (-1 when absent); rows are unique."""
    if len(table) == 0 or len(query) == 0:
        return np.full(len(query), -1, dtype=np.int64)
    both = np.concatenate([table, query])
    keys = _row_keys(both, int(both.max()) + 1)
    pos = pd.Index(keys[: len(table)]).get_indexer(pd.Index(keys[len(table) :]))
    return np.asarray(pos, dtype=np.int64)


def _read_table(path: Path, sep: str) -> pd.DataFrame:
    if path.stat().st_size == 0:
        return pd.DataFrame()
    try:
        table = pd.read_csv(
            path, sep=sep, header=None, dtype=str, keep_default_na=False, skip_blank_lines=True
        )
    except UnicodeDecodeError as exc:
        raise CorruptFileError(
            f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded); data files are "
            "tab-separated text: the arguments, then an optional truth value."
        ) from None
    except (pd.errors.ParserError, OSError) as exc:
        raise CorruptFileError(f"Cannot read {path}: {str(exc).strip()}") from exc
    if table.apply(lambda col: col.str.contains("\x00", regex=False)).to_numpy().any():
        raise CorruptFileError(
            f"{path} holds NUL bytes, so it is a binary file; data files are tab-separated "
            "text: the arguments, then an optional truth value."
        )
    stripped: pd.DataFrame = table.apply(lambda col: col.str.strip())
    while stripped.shape[1] > 1 and (stripped.iloc[:, -1] == "").all():
        stripped = stripped.iloc[:, :-1]  # a trailing separator on every line
    return stripped


def _infer_arity(table: pd.DataFrame) -> int:
    """Decide whether the last column holds truth values; return the arity.

    One column: an argument. Otherwise the last column is a value when every entry is a
    number in [0, 1] and the remaining columns list each atom once.
    """
    n_cols = table.shape[1]
    if n_cols == 1:
        return 1
    values = pd.to_numeric(table.iloc[:, -1], errors="coerce")
    numeric = bool(values.notna().all() and ((values >= 0) & (values <= 1)).all())
    if numeric and not table.iloc[:, :-1].duplicated().any():
        return n_cols - 1
    return n_cols


def _check_rule_arities(
    raw: Mapping[str, Mapping[str, pd.DataFrame]],
    files: Mapping[str, Mapping[str, Path]],
    arities: Mapping[str, int],
) -> None:
    """Refuse a file whose last column reads as truth values where the rules see an argument.

    Read with the rules' arity, such a file would make that column an argument and every
    atom true (truth 1.0), so the rules would ground to nonsense without a word.
    """
    for role in ("obs", "truth"):
        for name, table in raw[role].items():
            k = arities.get(name)
            if k is None or k < 2 or table.shape[1] != k or name in raw["targets"]:
                continue  # a targets file (no truth column) settles the arity by itself
            if _infer_arity(table) != k - 1:
                continue
            raise CorruptFileError(
                f"'{name}' takes {k} arguments in the rules, but {files[role][name].name} "
                f"reads as '{name}' with {k - 1} argument(s) and a truth value (its last "
                f"column is numbers in [0, 1]). Write {name} with {k - 1} argument(s) in the "
                "rules or, if that column is an argument, add a truth column (e.g. 1) to "
                "every line."
            )


def _to_frame(table: pd.DataFrame, name: str, arity: int | None, path: Path) -> pd.DataFrame:
    """Turn a raw string table into the from_frames layout (``a0..``, ``value``)."""
    if table.shape[1] == 0:
        if arity is None:
            raise CorruptFileError(
                f"{path} is empty, so the arity of '{name}' is unknown. Pass "
                f"arities={{'{name}': k}}, or delete the file."
            )
        return pd.DataFrame(
            {**{f"a{j}": pd.Series(dtype=object) for j in range(arity)}, "value": []}
        )
    k = _infer_arity(table) if arity is None else int(arity)
    if k < 1 or k > table.shape[1] or table.shape[1] > k + 1:
        raise CorruptFileError(
            f"{path}: {table.shape[1]} columns, but '{name}' takes {k} argument(s); a data "
            f"file holds the {k} argument(s), then at most one truth-value column. Fix the "
            "file or the rules."
        )
    frame = table.iloc[:, :k].copy()
    frame.columns = [f"a{j}" for j in range(k)]
    if table.shape[1] == k + 1:
        frame["value"] = _value_column(table.iloc[:, k], name, k, path)
    else:
        frame["value"] = 1.0
    return frame


def _value_column(column: pd.Series, name: str, k: int, path: Path) -> NDArray[np.float64]:
    """Read the truth-value column (after ``k`` arguments); name the first bad line."""
    values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values) | (values < 0.0) | (values > 1.0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        header = " (the layout has no header line; delete it)" if row == 0 else ""
        raise CorruptFileError(
            f"{path}: line {row + 1} has {column.iloc[row]!r} in column {k + 1}, the truth value "
            f"of '{name}' (which takes {k} argument(s)); truth values are numbers in [0, 1]"
            f"{header}. Rescale them, or fix the number of arguments."
        )
    return values
