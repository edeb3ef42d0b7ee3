"""A saved DADI model folder: the agent, and how raw columns become its inputs.

:class:`DadiModel` is what ``fairacq features train`` saves and ``acquire`` loads: the
:class:`DADI` agent (``agent.pt``, ``adversary.pt``, ``config.json``, the trace),
the :class:`~fairacq.data.TableEncoder` of its raw columns (``encoder.json``) and the roles of
the training table's columns (``columns.json``, :class:`~fairacq.data.TableColumns`). Both
JSON files are listed with their sha256 in ``config.json``'s manifest: an edited or swapped
file is refused on load, and so is an encoder that does not describe the agent's columns.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairacq._artefact import file_matches
from fairacq._io import read_json
from fairacq.data import TableColumns, TableEncoder
from fairacq.exceptions import CorruptFileError, FairacqError

if TYPE_CHECKING:
    from fairacq.features.dadi._estimator import DADI

__all__ = ["DadiModel"]

_ENCODER = "encoder.json"
_COLUMNS = "columns.json"
_COLUMNS_FORMAT = "fairacq.features.table-columns/1"


@dataclass(frozen=True)
class DadiModel:
    """A DADI agent with the encoder of its raw columns.

    Attributes
    ----------
    agent : DADI
        The fitted agent.
    encoder : TableEncoder or None
        Raw columns -> the agent's columns; None for a model whose columns have no raw form
        (a dataset with other encodings, or a model saved before encoders were kept).
    columns : TableColumns or None
        The roles of the training table's columns (None for a bundled dataset).
    include_sensitive : bool
        Whether the group columns were offered as features.
    """

    agent: DADI
    encoder: TableEncoder | None = None
    columns: TableColumns | None = None
    include_sensitive: bool = False

    def save(self, directory: str | os.PathLike[str]) -> None:
        """Write the agent with ``encoder.json`` and ``columns.json`` into ``directory``."""
        extra: dict[str, Any] = {
            _COLUMNS: {
                "format": _COLUMNS_FORMAT,
                "columns": None if self.columns is None else self.columns.to_dict(),
                "include_sensitive": bool(self.include_sensitive),
            }
        }
        if self.encoder is not None:
            extra[_ENCODER] = self.encoder.to_dict()
        self.agent.save(directory, extra_files=extra)  # a new folder, swapped in whole

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> DadiModel:
        """Load a folder written by :meth:`save` (or by :meth:`DADI.save`: no encoder).

        Raises
        ------
        CorruptFileError
            If a file is missing, edited after the save, malformed, or if the encoder does not
            describe the agent's columns.
        """
        from fairacq.features.dadi._estimator import DADI

        path = Path(directory)
        agent = DADI.load(path)
        files = getattr(agent, "saved_files_", {})
        encoder_data = _read_listed(path, _ENCODER, files)
        columns_data = _read_listed(path, _COLUMNS, files)
        try:
            encoder = None if encoder_data is None else TableEncoder.from_dict(encoder_data)
            columns, include = _parse_columns(columns_data)
        except (FairacqError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CorruptFileError(
                f"{path}: {_ENCODER} or {_COLUMNS} is not what fairacq saves ({exc}). Train "
                "and save the model again."
            ) from exc
        if encoder is not None and _groups(encoder.feature_groups_) != _groups(
            agent.feature_groups_
        ):
            raise CorruptFileError(
                f"{path / _ENCODER} does not describe the agent's feature columns (the two "
                "files come from different saves). Train and save the model again."
            )
        return cls(agent, encoder, columns, include)


def _read_listed(path: Path, name: str, files: Mapping[str, Any]) -> Any:
    """Read a JSON file of the model folder if the manifest lists it, checking its sha256."""
    if name not in files:
        return None
    target = path / name
    if not file_matches(target, files[name]):
        raise CorruptFileError(
            f"{target} is not the file saved with {path / 'config.json'} (missing, or its "
            "checksum differs: edited or from another save). Train and save the model again."
        )
    return read_json(target)


def _parse_columns(data: Any) -> tuple[TableColumns | None, bool]:
    if data is None:
        return None, False
    if not isinstance(data, Mapping) or data.get("format") != _COLUMNS_FORMAT:
        raise ValueError(f"{_COLUMNS} has no format {_COLUMNS_FORMAT!r}")
    raw = data["columns"]
    if raw is not None and not isinstance(raw, Mapping):
        raise TypeError(f"{_COLUMNS}: columns must be an object")
    include = data.get("include_sensitive", False)
    if not isinstance(include, bool):
        raise TypeError(f"{_COLUMNS}: include_sensitive must be true or false")
    return (None if raw is None else TableColumns.from_dict(raw)), include


def _groups(groups: Mapping[str, Any]) -> dict[str, list[str]]:
    return {str(k): [str(c) for c in v] for k, v in groups.items()}
