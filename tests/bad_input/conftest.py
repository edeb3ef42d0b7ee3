"""Files shared by the bad-input corpus: a tiny raw table, a pool and malformed tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bad_input._corpus import people_frame, write_bad_files


@pytest.fixture(scope="session")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of tables: ``people.csv`` (rows you have), ``pool.csv``/``pool.parquet``,
    ``afile.txt`` (a file where a folder is needed) and the bad files of ``write_bad_files``."""
    root = tmp_path_factory.mktemp("bad_input")
    people_frame(160, seed=0).to_csv(root / "people.csv", index=False)
    pool = people_frame(240, seed=1)
    pool.to_csv(root / "pool.csv", index=False)
    pool.to_parquet(root / "pool.parquet", index=False)
    (root / "afile.txt").write_text("not a folder\n")
    return write_bad_files(root)
