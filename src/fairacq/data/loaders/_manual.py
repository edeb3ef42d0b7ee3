"""Files fairacq cannot download itself: what to get, from where, and where to put it.

Two kinds: registry datasets whose publisher's terms or format rule out a download (Give Me
Some Credit, the Taiwan credit data), and the paper authors' files that some experiments read
(:data:`AUTHOR_FILES`: the Fair-A3SL authors' COMPAS folds and paper-review samples). Each
is described once here, so that ``fairacq datasets list`` (its ``needs`` column),
``fairacq datasets describe`` and ``fairacq datasets fetch`` say the same thing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from fairacq.data.loaders._paths import data_dir as default_data_dir
from fairacq.data.loaders.datasets._credit import RELPATH as CREDIT_RELPATH
from fairacq.data.loaders.datasets._taiwan import RELPATH as TAIWAN_RELPATH

__all__ = ["AUTHOR_FILES", "MANUAL_DOWNLOADS", "AuthorFiles", "ManualDownload"]

_A3SL_REPO = "https://github.com/yzhan202/fairness-A3SL"
_A3SL_COMMIT = "6b45a7478b6a3f532370206a41fef2434c0495bb"


@dataclass(frozen=True)
class ManualDownload:
    """How to obtain a file (or folder) fairacq cannot download.

    Parameters
    ----------
    name : str
        The dataset (or authors' files) it belongs to, e.g. ``"taiwan-credit"``.
    why : str
        Why fairacq does not download it.
    get : str
        What to download, e.g. ``"'default of credit card clients.xls'"``.
    url : str
        Where from.
    target : str
        Where to put it, relative to the data directory (a plain file; a ``.gz`` copy of a
        ``.csv`` is accepted too where the loader says so).
    then : str, default=""
        What to do with the download before saving it (e.g. export a sheet as CSV).
    save : str, default="save it as"
        The words before the destination (``"put them in"`` for folders).
    """

    name: str
    why: str
    get: str
    url: str
    target: str
    then: str = ""
    save: str = "save it as"

    def instruction(self, root: str | os.PathLike[str] | None = None) -> str:
        """Return one line: why not, what to download from where, and where to save it.

        Parameters
        ----------
        root : path-like or None, default=None
            The data directory; None means :func:`fairacq.data.data_dir`.
        """
        base = Path(root).expanduser() if root is not None else default_data_dir()
        then = f", {self.then}," if self.then else ""
        return (
            f"{self.name} cannot be fetched ({self.why}): download {self.get} from "
            f"{self.url}{then} and {self.save} {base / self.target}"
        )

    def is_present(self, root: str | os.PathLike[str] | None = None) -> bool:
        """Whether ``target`` (or its gzipped copy) is in the data directory ``root``."""
        base = Path(root).expanduser() if root is not None else default_data_dir()
        path = base / self.target
        return path.exists() or path.with_name(path.name + ".gz").is_file()


@dataclass(frozen=True)
class AuthorFiles:
    """Files of a paper's authors that some experiments read (not a registry dataset).

    Parameters
    ----------
    name : str
        The name ``fairacq datasets`` lists it under, e.g. ``"psl-compas"``.
    title, description : str
        What the files hold.
    used_by : tuple of str
        The commands that need them.
    download : ManualDownload
        How to obtain them.
    papers : tuple of str
        Which paper and section use them.
    """

    name: str
    title: str
    description: str
    used_by: tuple[str, ...]
    download: ManualDownload
    papers: tuple[str, ...]


#: Registry datasets that cannot be downloaded: name -> how to obtain the file.
MANUAL_DOWNLOADS: dict[str, ManualDownload] = {
    "give-me-some-credit": ManualDownload(
        name="give-me-some-credit",
        why="Kaggle's competition rules forbid redistribution",
        get="cs-training.csv",
        url="https://www.kaggle.com/c/GiveMeSomeCredit/data (sign in, accept the rules)",
        target=CREDIT_RELPATH.removesuffix(".gz"),
    ),
    "taiwan-credit": ManualDownload(
        name="taiwan-credit",
        why="UCI publishes it only as an Excel workbook",
        get="'default of credit card clients.xls'",
        url="https://archive.ics.uci.edu/dataset/350/default+of+credit+card+clients",
        then=(
            "export its sheet as CSV keeping the header row 'ID,X1,...,X23,Y' (delete the "
            "second, descriptive header row)"
        ),
        target=TAIWAN_RELPATH.removesuffix(".gz"),
    ),
}

_FOLDS = ManualDownload(
    name="psl-compas",
    why="fairacq does not download the paper authors' files",
    get="the authors' folds, compas_5cv.tar.gz,",
    url=f"{_A3SL_REPO}/raw/{_A3SL_COMMIT}/test/data/compas_5cv.tar.gz",
    target="fair-a3sl/compas_5cv.tar.gz",
)
_SAMPLES = ManualDownload(
    name="psl-paper-review",
    why="fairacq does not download the paper authors' files",
    get="the authors' samples, the folders bias1 ... bias10,",
    url=f"{_A3SL_REPO}/tree/{_A3SL_COMMIT}/test/data/biasedPaperReview",
    target="fair-a3sl/biasedPaperReview",
    save="put them in",
)

#: The paper authors' files some experiments read, by the name ``datasets list`` shows.
AUTHOR_FILES: dict[str, AuthorFiles] = {
    files.name: files
    for files in (
        AuthorFiles(
            name="psl-compas",
            title="COMPAS as PSL predicates: the Fair-A3SL authors' 5 folds",
            description=(
                "The authors' five cross-validation folds of COMPAS as predicates "
                "(with per-charge history the bundled file lacks). The quick presets and "
                "`relational learn --dataset compas` use folds built from the bundled file."
            ),
            used_by=(
                "fairacq reproduce psl-compas --full",
                "fairacq reproduce a3sl-compas --full",
            ),
            download=_FOLDS,
            papers=("004 Fair-A3SL §5.2, Tables 8-9",),
        ),
        AuthorFiles(
            name="psl-paper-review",
            title="Paper-review network: the Fair-A3SL authors' 10 samples",
            description=(
                "Ten samples of the synthetic paper-review network the authors generated "
                "(bias1 ... bias10)."
            ),
            used_by=(
                "fairacq relational learn --dataset paper-review",
                "fairacq reproduce psl-paper-review --full",
                "fairacq reproduce a3sl-paper-review",
            ),
            download=_SAMPLES,
            papers=("004 Fair-A3SL §5.1, Tables 4-5",),
        ),
    )
}
