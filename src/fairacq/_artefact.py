"""Saved artefacts: a folder written whole, a manifest of its files, and JSON.

Everything fairacq saves goes through here. A folder is built in a hidden sibling and
swapped in whole (:func:`artefact_folder`, on :func:`fairacq._run_folder.run_folder`), so a
kill never leaves half of it. Its ``manifest.json`` records a format version (``"<kind>/<n>"``,
raised when the layout changes), the fairacq version that wrote it and the sha256 of every
file, so a load refuses a file edited, swapped or cut short (:func:`check_manifest`).
:func:`to_jsonable` is the one conversion of numpy values, paths, tuples and sets to JSON.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from fairacq._io import read_json, sha256_file, to_jsonable, write_json
from fairacq._run_folder import run_folder
from fairacq._version import __version__
from fairacq.exceptions import CorruptFileError

__all__ = [
    "MANIFEST",
    "artefact_folder",
    "check_manifest",
    "file_matches",
    "sha256_file",
    "to_jsonable",
    "write_manifest",
]

#: The manifest's file name, at the top of the artefact folder.
MANIFEST = "manifest.json"


def file_matches(path: str | os.PathLike[str], sha256: object) -> bool:
    """Whether ``path`` is a file whose sha256 is ``sha256`` (False when it is missing).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "a.txt"
    >>> _ = f.write_text("hi")
    >>> file_matches(f, sha256_file(f)), file_matches(f, "0" * 64)
    (True, False)
    >>> file_matches(f.parent / "missing.txt", "")
    False
    """
    where = Path(path)
    return where.is_file() and isinstance(sha256, str) and sha256_file(where) == sha256


def write_manifest(folder: str | os.PathLike[str], *, format: str) -> dict[str, Any]:
    """Write ``manifest.json`` listing the sha256 of every file under ``folder``.

    Parameters
    ----------
    folder : path-like
        The artefact folder (its files in subfolders are listed by relative path).
    format : str
        The layout's name and version, ``"<kind>/<n>"``.

    Returns
    -------
    dict
        The manifest written: ``{"format", "fairacq_version", "files": {name: sha256}}``.
    """
    root = Path(folder)
    files = {
        p.relative_to(root).as_posix(): sha256_file(p)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != MANIFEST
    }
    manifest = {"format": format, "fairacq_version": __version__, "files": files}
    write_json(root / MANIFEST, manifest)
    return manifest


def check_manifest(folder: str | os.PathLike[str], *, formats: Collection[str]) -> dict[str, Any]:
    """Read ``folder``'s manifest and check its format and every file it lists.

    Parameters
    ----------
    folder : path-like
        A folder written by :func:`artefact_folder`.
    formats : collection of str
        The format versions this fairacq reads.

    Returns
    -------
    dict
        The manifest.

    Raises
    ------
    CorruptFileError
        If the manifest is missing or malformed, of another format, or a file it lists is
        missing or differs from the one saved (one line naming it, with the fix).
    """
    root = Path(folder)
    manifest = read_json(root / MANIFEST)
    files = manifest.get("files") if isinstance(manifest, Mapping) else None
    if not isinstance(files, Mapping):
        raise CorruptFileError(f"{root / MANIFEST} lists no files. Save the artefact again.")
    if manifest.get("format") not in formats:
        raise CorruptFileError(
            f"{root} holds format {manifest.get('format')!r}; this fairacq reads "
            f"{', '.join(sorted(formats))}. Save it again with this version of fairacq."
        )
    for name, digest in files.items():
        if not file_matches(root / name, digest):
            raise CorruptFileError(
                f"{root / name} is not the file saved with {root / MANIFEST} (missing, or "
                "its checksum differs: edited or from another save). Save the artefact again."
            )
    return dict(manifest)


@contextlib.contextmanager
def artefact_folder(path: str | os.PathLike[str], *, format: str) -> Iterator[Path]:
    """Yield a fresh folder to fill; on success, add its manifest and swap it in at ``path``.

    On an error nothing changes at ``path`` (the earlier artefact, if any, stays).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "model"
    >>> with artefact_folder(out, format="example/1") as building:
    ...     write_json(building / "params.json", {"alpha": 0.5})
    >>> check_manifest(out, formats={"example/1"})["files"].keys()
    dict_keys(['params.json'])
    """
    with run_folder(path) as staging:
        yield staging
        write_manifest(staging, format=format)
