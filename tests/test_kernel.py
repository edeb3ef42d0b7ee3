"""The small shared kernel: random streams, validation, atomic IO, optional dependencies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq._deps import require
from fairacq._io import atomic_write, read_json, sha256_file, write_json
from fairacq._random import as_generator, derive_int_seed, seed_of, spawn_seeds
from fairacq._validation import (
    HasMethods,
    Interval,
    Options,
    check_binary_labels,
    check_consistent_length,
    check_groups,
    check_no_nan,
    did_you_mean,
    validate_parameter_constraints,
)
from fairacq.exceptions import (
    CorruptFileError,
    InvalidDataError,
    InvalidParameterError,
    MissingDependencyError,
    UnknownNameError,
)


def test_as_generator_reproducible_and_passthrough():
    assert as_generator(5).random() == as_generator(5).random()
    gen = np.random.default_rng(1)
    assert as_generator(gen) is gen
    assert isinstance(as_generator(None), np.random.Generator)


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_as_generator_rejects(bad):
    with pytest.raises(InvalidParameterError, match="random_state"):
        as_generator(bad)


def test_spawn_seeds_independent_and_stable():
    a, b = spawn_seeds(7, 2), spawn_seeds(7, 2)
    assert [s.spawn_key for s in a] == [(0,), (1,)]
    draws = [np.random.default_rng(s).random() for s in a]
    assert draws == [np.random.default_rng(s).random() for s in b]
    assert draws[0] != draws[1]
    assert seed_of(a[1]) == {"seed": 7, "spawn_key": [1]}
    assert seed_of(3) == {"seed": 3, "spawn_key": []}
    assert derive_int_seed(3) == derive_int_seed(3)


@given(st.integers(-5, 5), st.integers(-5, 5))
def test_interval_membership(lo, x):
    iv = Interval(int, lo, lo + 3, closed="left")
    assert iv.is_satisfied_by(x) == (lo <= x < lo + 3)


def test_constraints_message_names_parameter():
    cons = {
        "budget": [Interval(int, 1, None, closed="left")],
        "kind": [Options({"a", "b"})],
        "model": [HasMethods(["fit"]), None],
        "random_state": ["random_state"],
    }
    validate_parameter_constraints(
        cons, {"budget": 3, "kind": "a", "model": None, "random_state": 0}, "X"
    )
    with pytest.raises(InvalidParameterError, match=r"'budget' parameter of X must be an int"):
        validate_parameter_constraints(cons, {"budget": 0}, "X")
    with pytest.raises(InvalidParameterError, match="one of"):
        validate_parameter_constraints(cons, {"kind": "c"}, "X")
    with pytest.raises(InvalidParameterError, match="methods fit"):
        validate_parameter_constraints(cons, {"model": 3}, "X")


def test_did_you_mean():
    err = did_you_mean("metric", "acuracy", ["accuracy", "auc"], "here")
    assert isinstance(err, UnknownNameError)
    assert "Did you mean 'accuracy'" in str(err)
    assert "Known: accuracy, auc" in str(did_you_mean("metric", "zzz", ["auc", "accuracy"], "x"))


def test_data_checks():
    assert check_consistent_length("w", a=[1, 2], b=[3, 4]) == 2
    with pytest.raises(InvalidDataError, match="different lengths"):
        check_consistent_length("w", a=[1, 2], b=[3])
    with pytest.raises(InvalidDataError, match=r"2 NaN values \(rows 0, 2\)"):
        check_no_nan("w", "x", [np.nan, 1.0, np.nan])
    with pytest.raises(InvalidDataError, match="binary"):
        check_binary_labels("w", [0, 1, 2])
    assert check_binary_labels("w", [True, False]).tolist() == [1, 0]
    with pytest.raises(InvalidDataError, match="single group"):
        check_groups("w", [1, 1, 1])
    with pytest.raises(InvalidDataError, match="integer group codes"):
        check_groups("w", ["a", "b"])


@given(st.lists(st.integers(-2, 3), max_size=30), st.sampled_from(["int64", "int8", "uint8"]))
def test_label_and_group_checks_accept_exactly_what_their_definitions_say(values, dtype):
    # the fast paths (min/max of integer arrays) against the definitions: labels are 0/1,
    # groups are integer codes of two or more distinct values
    arr = np.array(values).astype(dtype)
    binary = set(arr.tolist()) <= {0, 1}
    if binary:
        assert check_binary_labels("w", arr).tolist() == arr.tolist()
    else:
        with pytest.raises(InvalidDataError, match="binary 0/1"):
            check_binary_labels("w", arr)
    if len(set(arr.tolist())) >= 2:
        assert check_groups("w", arr).tolist() == arr.tolist()
    else:
        with pytest.raises(InvalidDataError, match="single group"):
            check_groups("w", arr)
    assert check_binary_labels("w", np.array([0.0, 1.0, 1.0])).tolist() == [0, 1, 1]
    with pytest.raises(InvalidDataError, match="binary 0/1"):
        check_binary_labels("w", np.array([0.0, 0.5]))


def test_atomic_write_and_json(tmp_path):
    write_json(tmp_path / "a.json", {"x": np.float64(1.5), "y": np.arange(2)})
    assert read_json(tmp_path / "a.json") == {"x": 1.5, "y": [0, 1]}

    def crash() -> None:
        with atomic_write(tmp_path / "b.txt") as f:
            f.write("partial")
            raise RuntimeError

    with pytest.raises(RuntimeError):
        crash()
    assert not (tmp_path / "b.txt").exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "a.json"]
    (tmp_path / "bad.json").write_text("{oops")
    with pytest.raises(CorruptFileError, match="not valid JSON"):
        read_json(tmp_path / "bad.json")
    assert len(sha256_file(tmp_path / "a.json")) == 64
    assert json.loads((tmp_path / "a.json").read_text())["x"] == 1.5


def test_require_missing_dependency():
    assert require("json").dumps(1) == "1"
    with pytest.raises(MissingDependencyError, match=r"pip install 'fairacq\[all\]'"):
        require("surely_not_a_module_xyz")


def test_child_seeds_do_not_depend_on_earlier_spawns():
    from fairacq._random import child_seeds

    root = np.random.SeedSequence(7)
    first = [c.generate_state(2).tolist() for c in child_seeds(root, 3)]
    root.spawn(4)  # what a task running before in the same process might have done
    again = [c.generate_state(2).tolist() for c in child_seeds(root, 3)]
    fresh = [c.generate_state(2).tolist() for c in np.random.SeedSequence(7).spawn(3)]
    assert first == again == fresh


def test_atomic_writes_honour_the_umask_and_clean_orphans(tmp_path):
    import os
    import subprocess
    import sys

    from fairacq._io import atomic_write

    old = os.umask(0o027)
    try:
        with atomic_write(tmp_path / "a.txt") as f:
            f.write("x")
        assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    orphan = tmp_path / f".a.txt.{dead}.abc123.tmp"  # what a killed writer leaves
    orphan.write_bytes(b"")
    live = tmp_path / f".a.txt.{os.getpid()}.def456.tmp"  # a writer still running
    live.write_bytes(b"")
    with atomic_write(tmp_path / "a.txt") as f:
        f.write("y")
    assert not orphan.exists()
    assert live.exists()
    assert (tmp_path / "a.txt").read_text() == "y"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["a.txt", live.name])


def test_read_json_names_every_problem_in_one_line(tmp_path):
    import json

    from fairacq._io import MAX_JSON_DEPTH, read_json
    from fairacq.exceptions import CorruptFileError

    deep = tmp_path / "deep.json"
    deep.write_text("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": ')
    cases = [(deep, "nests deeper"), (binary, "not a text file"), (broken, "not valid JSON"),
             (tmp_path, "is a folder"), (tmp_path / "nope.json", "does not exist")]  # fmt: skip
    for path, match in cases:
        with pytest.raises(CorruptFileError, match=match) as info:
            read_json(path)
        assert "\n" not in str(info.value)
    with pytest.raises(FileNotFoundError):  # a missing file is still a FileNotFoundError
        read_json(tmp_path / "nope.json")
    fine = tmp_path / "fine.json"
    value = {"s": '[[[{{{"\\', "x": [[1]] * 3}  # brackets and escapes inside a string
    fine.write_text(json.dumps(value))
    assert read_json(fine) == value


def test_warnings_name_the_callers_line_not_the_library():
    from fairacq.acquisition import DataSiftAcquirer
    from fairacq.acquisition.methods._partition import PartitionDroppedWarning
    from fairacq.data import load_toy

    ds = load_toy(600, random_state=0)
    train, val, pool = (
        ds.subset(range(100)),
        ds.subset(range(100, 200)),
        ds.subset(range(200, 600)),
    )
    acq = DataSiftAcquirer(budget=200, batch_size=60, n_partitions=8, random_state=0)
    with pytest.warns(PartitionDroppedWarning) as caught:
        acq.fit(train, pool, validation=val)
    assert caught[0].filename == __file__


def test_read_json_refuses_devices_and_oversized_files(tmp_path):
    """A link to an endless device, or a file over the limit, is refused before it is read."""
    from fairacq._io import read_json

    link = tmp_path / "proxy.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(CorruptFileError, match="not a regular file"):
        read_json(link)
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"x": "a" * 200}))
    with pytest.raises(CorruptFileError, match="larger than 100 bytes"):
        read_json(big, max_bytes=100)
    assert read_json(big, max_bytes=1000) == {"x": "a" * 200}


def test_read_bytes_bounded_is_the_bytes_of_a_regular_file(tmp_path):
    from fairacq._io import read_bytes_bounded

    path = tmp_path / "entry"
    path.write_bytes(b"abc")
    assert read_bytes_bounded(path, 3) == b"abc"
    with pytest.raises(CorruptFileError, match="larger than 2 bytes"):
        read_bytes_bounded(path, 2)
    with pytest.raises(FileNotFoundError):
        read_bytes_bounded(tmp_path / "missing", 3)
    with pytest.raises(CorruptFileError, match="is a folder"):
        read_bytes_bounded(tmp_path, 3)


def test_the_kernel_contract_lists_every_kernel_module():
    import tomllib

    root = Path(__file__).resolve().parents[1]
    contracts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]
    (kernel,) = [
        c for c in contracts["contracts"] if c["name"] == "The kernel imports no subpackage"
    ]
    package = root / "src" / "fairacq"
    modules = {f"fairacq.{p.stem}" for p in package.glob("*.py") if p.stem != "__init__"}
    # A private subpackage of the kernel (``_trace/``) is one kernel module too.
    modules |= {f"fairacq.{p.parent.name}" for p in package.glob("_*/__init__.py")}
    assert set(kernel["source_modules"]) == modules
