"""Download dataset files from their canonical public URLs, with sha256 verification.

Every remote file is pinned by the sha256 of its content (for a zip, of the member that is
kept), taken from the project's PROVENANCE files. A download is written to a temporary file
and moved into place only when the checksum matches, so a data directory never holds a
partial or altered file. The tables :data:`REMOTE_FILES` and :data:`ACS_REMOTE_FILES` are
module-level dictionaries so that tests (and mirrors) can point them elsewhere.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import shutil
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from fairacq._io import atomic_path
from fairacq._validation import did_you_mean
from fairacq.data.loaders._catalogue import CATALOGUE
from fairacq.data.loaders._manual import AUTHOR_FILES, MANUAL_DOWNLOADS, ManualDownload
from fairacq.data.loaders._paths import DatasetNotFoundError, bundled_file
from fairacq.data.loaders._paths import data_dir as default_data_dir
from fairacq.data.loaders.datasets._acs import ACS_TASKS, STATE_CODES, acs_relpath
from fairacq.exceptions import CorruptFileError, InvalidParameterError

__all__ = [
    "ACS_REMOTE_FILES",
    "REMOTE_FILES",
    "FetchPlan",
    "RemoteFile",
    "fetch_dataset",
    "plan_fetch",
]

_CHUNK = 1 << 20


@dataclass(frozen=True)
class RemoteFile:
    """One file to fetch into the data directory.

    Parameters
    ----------
    url : str
        Where to download from (``https://`` or ``file://``).
    target : str
        Path inside the data directory. A target ending in ``.gz`` is gzip-compressed on
        write (the payload itself is not compressed).
    sha256 : str
        Hex sha256 of the payload: the downloaded bytes, or the zip member's bytes.
    member : str or None, default=None
        Name of the member to extract when ``url`` is a zip archive.
    """

    url: str
    target: str
    sha256: str
    member: str | None = None


_ML = "https://files.grouplens.org/datasets/movielens/ml-100k.zip"
_ML_SHA = {
    "u.data": "06416e597f82b7342361e41163890c81036900f418ad91315590814211dca490",
    "u.user": "f120e114da2e8cf314fd28f99417c94ae9ddf1cb6db8ce0e4b5995d40e90e62c",
    "u.item": "553841ebc7de3a0fd0d6b62a204ea30c1e651aacfb2814c7a6584ac52f2c5701",
    "u.genre": "9757e0d3e6b298159a80dd48eaf938114690e911e39af97a76949ef1663610bb",
    "u.occupation": "cd5fbec9afe345d993a62fc7817df1a4a9079c4feb267b3118763b8fd942137d",
    "u.info": "5b0a40b2e47a729ee6203063f6dcf8790c2e63f5a18663e6ee318a72c5f3c27b",
}

#: Fetchable non-ACS datasets: registry name -> files (sha256 from shared PROVENANCE.md files).
REMOTE_FILES: dict[str, tuple[RemoteFile, ...]] = {
    "movielens-100k": tuple(
        RemoteFile(
            url=_ML,
            member=f"ml-100k/{name}",
            target=f"movielens-100k/{name}.gz" if name == "u.data" else f"movielens-100k/{name}",
            sha256=sha,
        )
        for name, sha in _ML_SHA.items()
    ),
}

_CENSUS = "https://www2.census.gov/programs-surveys/acs/data/pums/2018/1-Year"
_ACS_SHA = {
    "WY": "5a98dac3cad5341136738fad4560d25356b744009910e7de954de5cc81db5212",
    "DE": "d844a69adea934503619c82acac2c37331883023efeb6540c1c7129f6a224c49",
    "VT": "01d8a17f099714462e056fb82768f6278f939b94ea2e629e46e8c7cc84f7a8d1",
    "HI": "57f821dd8c4190fad8d677948028d75e200a4537c0a2944affd9cb50c88dcb8a",
    "ID": "197ebaaa540dff52135dafe3f465e61ff50463f5355741425b1e4157206bd8ab",
    "ME": "0dcdc4d7a027f243360868f9b18f1ab064502abd57afaa22530685b3182a5894",
    "MT": "cd2a6c5ed791f39ab50aaff058f430d7c96489405c6cb1ecdf2602d025c6d604",
    "NE": "46b6a6c5e9ca4137d868d5cb4421c5e6767d7d7f0eb373fff49d2a14e01d0c79",
    "NH": "95b5df5ea021b3d34a06a3e48f5e35c699fb1d8c3ebdde2288c937b97c0daa65",
    "NM": "89d0cda191700869daa53fc5265658610e584192be49ca8a42fd601f909385f3",
    "ND": "1e267c337813a17d3d95abf565c8d5637d2fee960006503dcbd959afbfdf6114",
    "RI": "7a637795c19f72c4706f627953f53dc30baacb96be2be796244bf984c4247238",
    "SD": "bbf1b4e49c767aefd933371152795fb42b7fed0f773d82900bcaf91494433e09",
    "WV": "f49ebb223a615b599d557ad38f3bd6ae4f632d2ef4dca2e600eb59a0b6c6faf5",
}

#: ACS 2018 1-Year person files with a pinned checksum: state -> file.
ACS_REMOTE_FILES: dict[str, RemoteFile] = {
    state: RemoteFile(
        url=f"{_CENSUS}/csv_p{state.lower()}.zip",
        member=f"psam_p{STATE_CODES[state]}.csv",
        target=acs_relpath(state, 2018),
        sha256=sha,
    )
    for state, sha in _ACS_SHA.items()
}


@dataclass(frozen=True)
class FetchPlan:
    """What :func:`fetch_dataset` does for one dataset (:func:`plan_fetch` returns it).

    Attributes
    ----------
    name : str
        The dataset (or the authors' files, such as ``"psl-compas"``).
    folder : pathlib.Path
        Where its files are (the bundled folder for a bundled dataset).
    downloads : tuple of RemoteFile
        The files to download (empty when all are present, or for a bundled dataset).
    present : tuple of str
        The files already in the data directory (kept unless ``force``).
    bundled : bool
        Whether the dataset ships inside the package (nothing to fetch).
    manual : ManualDownload or None
        For a dataset fairacq cannot download: how to obtain it.
    missing : bool
        Whether that manual download is still missing (then fetching fails).
    """

    name: str
    folder: Path
    downloads: tuple[RemoteFile, ...] = ()
    present: tuple[str, ...] = ()
    bundled: bool = False
    manual: ManualDownload | None = None
    missing: bool = False


def _known() -> list[str]:
    return [*CATALOGUE, *AUTHOR_FILES]


def _acs_specs(states: Sequence[str]) -> list[RemoteFile]:
    if isinstance(states, str) or not states:
        raise InvalidParameterError(
            "The 'states' parameter of fetch_dataset must be a non-empty sequence of "
            f"state codes. Got {states!r} instead. Pass e.g. states=('WY',)."
        )
    specs = []
    for state in (str(s).upper() for s in states):
        if state not in ACS_REMOTE_FILES:
            raise did_you_mean(
                "ACS state with a pinned checksum",
                state,
                ACS_REMOTE_FILES,
                "fairacq.data.loaders.ACS_REMOTE_FILES",
            )
        specs.append(ACS_REMOTE_FILES[state])
    return specs


def plan_fetch(
    name: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    force: bool = False,
    states: Sequence[str] = ("WY",),
) -> FetchPlan:
    """Return what :func:`fetch_dataset` would do, without downloading anything.

    Takes the arguments of :func:`fetch_dataset` and raises its argument errors.

    Returns
    -------
    FetchPlan
    """
    if name not in CATALOGUE and name not in AUTHOR_FILES:
        raise did_you_mean("dataset", name, _known(), "fairacq.data.list_datasets()")
    if name in CATALOGUE and CATALOGUE[name].bundled:
        folder = Path(str(bundled_file(CATALOGUE[name].files[0]))).parent
        return FetchPlan(name, folder, bundled=True)
    root = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    manual = AUTHOR_FILES[name].download if name in AUTHOR_FILES else MANUAL_DOWNLOADS.get(name)
    if manual is not None:
        target = root / manual.target
        folder = target.parent if target.suffix else target
        present = manual.is_present(root)
        return FetchPlan(
            name, folder, present=(manual.target,) if present else (), manual=manual,
            missing=not present,
        )  # fmt: skip
    if name in {registry for registry, _ in ACS_TASKS.values()}:
        specs, folder = _acs_specs(states), root / "acs" / "2018" / "1-Year"
    else:
        specs, folder = list(REMOTE_FILES[name]), root / name
    todo = tuple(s for s in specs if force or not _exists(root, s.target))
    kept = tuple(s.target for s in specs if s not in todo)
    return FetchPlan(name, folder, downloads=todo, present=kept)


def _exists(root: Path, target: str) -> bool:
    path = root / target
    return path.is_file() or (target.endswith(".gz") and path.with_suffix("").is_file())


@contextmanager
def _writer(path: Path, *, compress: bool) -> Iterator[io.BufferedIOBase]:
    """Open ``path`` for binary writing, gzip-compressed (reproducibly: no name, no time)."""
    if compress:
        with (
            open(path, "wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz,
        ):
            yield gz
    else:
        with open(path, "wb") as fh:
            yield fh


def _copy_hashed(src: io.BufferedIOBase | IO[bytes], dst: io.BufferedIOBase | IO[bytes]) -> str:
    digest = hashlib.sha256()
    while block := src.read(_CHUNK):
        digest.update(block)
        dst.write(block)
    return digest.hexdigest()


def _mismatch(spec: RemoteFile, got: str) -> CorruptFileError:
    what = f"member {spec.member!r} of {spec.url}" if spec.member else spec.url
    return CorruptFileError(
        f"Checksum mismatch for {what}: expected sha256 {spec.sha256}, got {got}. The "
        f"partial file was deleted and {spec.target} was not written. Retry later, or check "
        "that the publisher has not changed the file (see the dataset's PROVENANCE.md)."
    )


def _download(url: str, dest: Path, target: str) -> str:
    """Stream ``url`` to ``dest`` and return the sha256 of the bytes."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response, open(dest, "wb") as out:
            return _copy_hashed(response, out)
    except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
        reason = getattr(exc, "reason", exc)
        raise DatasetNotFoundError(
            f"Could not download {url} ({reason}). Check the network connection and retry, "
            f"or download it by hand and place the file at <data directory>/{target}."
        ) from exc


def _fetch_group(url: str, specs: Sequence[RemoteFile], root: Path) -> None:
    """Download one URL and write every file that comes from it."""
    with tempfile.TemporaryDirectory(prefix=".fairacq-fetch-") as tmp:
        download = Path(tmp) / "download"
        digest = _download(url, download, specs[0].target)
        plain = [s for s in specs if s.member is None]
        for spec in plain:
            if digest != spec.sha256:
                raise _mismatch(spec, digest)
            with (
                atomic_path(root / spec.target) as part,
                _writer(part, compress=spec.target.endswith(".gz")) as out,
                open(download, "rb") as src,
            ):
                shutil.copyfileobj(src, out, _CHUNK)
        members = [(s, s.member) for s in specs if s.member is not None]
        if not members:
            return
        try:
            archive = zipfile.ZipFile(download)
        except zipfile.BadZipFile as exc:
            raise CorruptFileError(
                f"{url} is not a valid zip archive ({exc}). Retry later, or download it by hand."
            ) from exc
        with archive:
            names = set(archive.namelist())
            for spec, member in members:
                if member not in names:
                    raise CorruptFileError(
                        f"{url} has no member {member!r} (found {sorted(names)[:5]}). "
                        "The publisher may have changed the archive; see PROVENANCE.md."
                    )
                with atomic_path(root / spec.target) as part:
                    with (
                        archive.open(member) as src,
                        _writer(part, compress=spec.target.endswith(".gz")) as out,
                    ):
                        got = _copy_hashed(src, out)
                    if got != spec.sha256:
                        raise _mismatch(spec, got)


def fetch_dataset(
    name: str,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    force: bool = False,
    states: Sequence[str] = ("WY",),
) -> Path:
    """Download a dataset's files into the local data directory, verifying their sha256.

    MovieLens 100K comes from GroupLens (``ml-100k.zip``) and the ACS tasks from the Census
    Bureau (``csv_pNN.zip`` of the 2018 1-Year person files, the URLs folktables uses); each
    kept file is checked against the sha256 recorded in the project's PROVENANCE files and
    written atomically, gzipped where the data-directory layout says ``.gz``. Files already
    present are kept unless ``force``. The bundled datasets (Adult, COMPAS, German, Bank
    Marketing) need no download: their bundled folder is returned. Give Me Some Credit
    (Kaggle rules), the Taiwan credit data (published only as an Excel workbook) and the
    Fair-A3SL authors' files (``"psl-compas"``, ``"psl-paper-review"``) cannot be fetched:
    once they are in the data directory their folder is returned, else the error says in
    one line what to download, from where, and where to save it.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"movielens-100k"`` or ``"acs-income"``.
    data_dir : path-like or None, default=None
        Destination; ``None`` means :func:`fairacq.data.data_dir` (``$FAIRACQ_DATA``).
    force : bool, default=False
        Download again even when the files exist.
    states : sequence of str, default=("WY",)
        ACS only: which states to fetch. Only the 14 states with a pinned checksum are
        accepted (DE HI ID ME MT ND NE NH NM RI SD VT WV WY).

    Returns
    -------
    pathlib.Path
        The dataset's folder (for ACS, ``<data dir>/acs/2018/1-Year``).

    Raises
    ------
    UnknownNameError
        For an unknown dataset name, or an ACS state without a pinned checksum.
    CorruptFileError
        If a download's sha256 differs from the pinned one (the partial file is deleted).
    DatasetNotFoundError
        If the download fails, or the dataset cannot be fetched and is not present.
    """
    root = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    if root.exists() and not root.is_dir():
        raise InvalidParameterError(
            f"The data directory {root} is a file; pass a folder to download into (it is "
            "created if needed)."
        )
    plan = plan_fetch(name, data_dir=data_dir, force=force, states=states)
    if plan.manual is not None and plan.missing:
        raise DatasetNotFoundError(plan.manual.instruction(root) + ".")
    by_url: dict[str, list[RemoteFile]] = {}
    for spec in plan.downloads:
        by_url.setdefault(spec.url, []).append(spec)
    for url, group in by_url.items():
        _fetch_group(url, group, root)
    return plan.folder
