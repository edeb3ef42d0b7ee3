"""The artefact helper: folders written whole, manifests checked on load, one JSON conversion."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fairacq._artefact import (
    MANIFEST,
    artefact_folder,
    check_manifest,
    file_matches,
    sha256_file,
    to_jsonable,
    write_manifest,
)
from fairacq._io import write_json
from fairacq.exceptions import CorruptFileError

FORMAT = "test.artefact/1"


def _save(path: Path, alpha: float = 0.5) -> None:
    with artefact_folder(path, format=FORMAT) as building:
        write_json(building / "params.json", {"alpha": alpha})
        (building / "sub").mkdir()
        (building / "sub" / "weights.bin").write_bytes(b"\x00\x01")


def test_to_jsonable_converts_numpy_paths_tuples_sets_and_keys():
    out = to_jsonable(
        {
            1: (np.int64(2), np.float32(0.5), np.bool_(True)),
            "a": np.arange(3).reshape(1, 3),
            "p": Path("x") / "y.csv",
            "s": {10, 9},
            "mixed": {"b", 1},
        }
    )
    assert out == {"1": [2, 0.5, True], "a": [[0, 1, 2]], "p": "x/y.csv", "s": [9, 10],
                   "mixed": ["b", 1]}  # fmt: skip
    assert type(out["1"][0]) is int
    assert type(out["1"][2]) is bool
    assert json.loads(json.dumps(out)) == out


def test_to_jsonable_unknown_objects_by_choice():
    class Thing:
        def __repr__(self) -> str:
            return "Thing()"

        def __str__(self) -> str:
            return "a thing"

    assert to_jsonable([Thing()]) == ["Thing()"]
    assert to_jsonable([Thing()], unknown="str") == ["a thing"]
    with pytest.raises(TypeError, match="Thing is not JSON serialisable"):
        to_jsonable({"k": Thing()}, unknown="raise")


def test_write_json_refuses_what_it_cannot_convert(tmp_path):
    write_json(tmp_path / "ok.json", {"x": np.float64(1.5), "n": np.array([1, 2])})
    assert json.loads((tmp_path / "ok.json").read_text()) == {"x": 1.5, "n": [1, 2]}
    with pytest.raises(TypeError, match="object is not JSON serialisable"):
        write_json(tmp_path / "bad.json", {"x": object()})
    assert not (tmp_path / "bad.json").exists()


def test_artefact_folder_writes_a_manifest_of_every_file(tmp_path):
    out = tmp_path / "model"
    _save(out)
    manifest = check_manifest(out, formats={FORMAT})
    assert manifest["format"] == FORMAT
    assert set(manifest["files"]) == {"params.json", "sub/weights.bin"}
    assert manifest["files"]["sub/weights.bin"] == sha256_file(out / "sub" / "weights.bin")
    assert "fairacq_version" in manifest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # no staging left


@pytest.mark.parametrize(
    ("damage", "match"),
    [
        (lambda out: write_json(out / "params.json", {"alpha": 0.9}), "checksum differs"),
        (lambda out: (out / "sub" / "weights.bin").unlink(), "weights.bin is not the file"),
        (lambda out: (out / MANIFEST).unlink(), "does not exist"),
        (lambda out: write_json(out / MANIFEST, {"format": FORMAT}), "lists no files"),
    ],
)
def test_check_manifest_refuses_a_damaged_folder(tmp_path, damage, match):
    out = tmp_path / "model"
    _save(out)
    damage(out)
    with pytest.raises(CorruptFileError, match=match):
        check_manifest(out, formats={FORMAT})


def test_check_manifest_refuses_another_format(tmp_path):
    out = tmp_path / "model"
    _save(out)
    with pytest.raises(
        CorruptFileError, match=r"holds format 'test\.artefact/1'; this fairacq reads"
    ):
        check_manifest(out, formats={"test.artefact/2"})


def test_a_failed_save_leaves_the_earlier_artefact(tmp_path):
    out = tmp_path / "model"
    _save(out, alpha=0.5)

    def killed_while_saving() -> None:
        with artefact_folder(out, format=FORMAT) as building:
            write_json(building / "params.json", {"alpha": 0.7})
            raise RuntimeError("killed")

    with pytest.raises(RuntimeError, match="killed"):
        killed_while_saving()
    check_manifest(out, formats={FORMAT})
    assert json.loads((out / "params.json").read_text()) == {"alpha": 0.5}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_write_manifest_and_file_matches(tmp_path):
    (tmp_path / "a.txt").write_text("hi")
    manifest = write_manifest(tmp_path, format=FORMAT)
    assert list(manifest["files"]) == ["a.txt"]  # the manifest does not list itself
    assert file_matches(tmp_path / "a.txt", manifest["files"]["a.txt"])
    assert not file_matches(tmp_path / "a.txt", None)
    assert not file_matches(tmp_path / "missing.txt", manifest["files"]["a.txt"])
