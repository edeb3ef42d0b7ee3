"""The task cache stores results as data: nothing in a cache folder can run code."""

from __future__ import annotations

import functools
import hashlib
import json
import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairacq._trace import Trace, TraceRecorder
from fairacq_experiments import CachingExecutor, SerialExecutor, TaskCacheWarning, task_key
from fairacq_experiments._framework.result_codec import (
    CorruptValueError,
    UnsupportedValueError,
    decode,
    encode,
)


def _identity(value: Any) -> Any:
    return value


def _square(offset: int, x: int) -> int:
    return x * x + offset


class _Plant:
    """Unpickling this creates ``marker``: what a crafted cache file could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.marker), "w"))


def _crafted_pickle(marker: Path) -> bytes:
    payload = pickle.dumps((1, _Plant(marker)), protocol=5)
    control = marker.with_name("control-marker")
    pickle.loads(pickle.dumps(_Plant(control))).close()  # the payload does act when unpickled
    assert control.exists()
    control.unlink()
    return payload


def test_crafted_pickle_in_the_cache_folder_executes_nothing(tmp_path):
    folder, marker = tmp_path / "task-cache", tmp_path / "marker"
    fn = functools.partial(_square, 0)
    key = task_key(fn, 3)
    folder.mkdir()
    # where earlier versions kept entries, and under the current name
    (folder / f"{key}.pkl").write_bytes(_crafted_pickle(marker))
    cache = CachingExecutor(SerialExecutor(), folder)
    assert cache.map(fn, [3]) == [9]
    assert (cache.hits, cache.misses) == (0, 1)
    assert not marker.exists()
    (folder / f"{key}.jsonl").write_bytes(_crafted_pickle(marker))
    with pytest.warns(TaskCacheWarning, match="refused"):
        assert cache.map(fn, [3]) == [9]
    assert (cache.hits, cache.misses) == (0, 1)
    assert not marker.exists()
    assert cache.map(fn, [3]) == [9]  # the recomputed entry replaced the crafted one
    assert cache.hits == 1


def _trace() -> Trace:
    rec = TraceRecorder(
        method="demo", config={"budget": 2, "arms": (1, 2), "rate": np.float64(0.5)}
    )
    rec.record(cost=1.0, accuracy=0.5, accepted=True, batch=[1, 2], group="a", n=np.int64(3))
    rec.record(cost=2.0, accuracy=math.nan, accepted=False, batch=[], group="b", n=np.int64(4))
    return rec.finish(dropped_partitions=(3, 4), note=None)


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "i": np.arange(3, dtype=np.int64),
            "f": [0.1, math.nan, -0.0],
            "b": [True, False, True],
            "s": ["x", "y", None],
            "o": pd.Series([[1], "two", None], dtype=object),
            "u8": np.array([1, 2, 3], dtype=np.uint8),
        }
    )


#: Every type the experiments' tasks return (numbers, strings, containers, numpy arrays and
#: scalars, traces), nested as they nest them.
VALUES: dict[str, Any] = {
    "none": None,
    "bool": True,
    "int": -(2**70),
    "floats": [0.1, -0.0, math.inf, -math.inf, math.nan, 1e-310],
    "str": "é ~ \n",
    "tuple": (1, ("a", 2.5), ()),
    "dict": {"a": 1, 2: "b", (1, "x"): None, "~": {"nested": [1, 2]}},
    "tagged-lookalike": {"~": "trace", "items": []},
    "numpy scalars": [np.float64(0.25), np.int64(-3), np.bool_(True), np.float32(1.5)],
    "arrays": [
        np.array([[0.5, math.nan], [math.inf, -0.0]]),
        np.arange(6, dtype=np.int32).reshape(2, 3),
        np.array([True, False]),
        np.empty((0, 3)),
        np.array(["ab", "c"]),
        np.array(np.datetime64("2024-01-02")),
        np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    ],
    "frame": _frame(),
    "trace": _trace(),
    "task rows": {"fold": 0, "auc": 0.9, "metrics": {"rd": np.float64(-0.01)}, "rules": ["a"]},
    "traces by method": {"datasift": _trace(), "random": _trace()},
    "curve and trace": {"grid": np.linspace(0, 1, 3), "aopt": _trace(), "alone": [0.8, None]},
}


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types, all the way down (NaN equals NaN, -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float | np.floating):
        return repr(a) == repr(b)
    if isinstance(a, np.ndarray | np.generic):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
        return all(_same(x, y) for x, y in zip(a["o"], b["o"], strict=True)) if "o" in a else True
    if isinstance(a, Trace):
        return a == b and _same(a.meta, b.meta) and _same(a.to_frame(), b.to_frame())
    return bool(a == b)


@pytest.mark.parametrize("name", list(VALUES))
def test_every_result_type_round_trips_through_the_cache(tmp_path, name):
    value = VALUES[name]
    first = CachingExecutor(SerialExecutor(), tmp_path)
    assert first.map(_identity, [value])[0] is value
    again = CachingExecutor(SerialExecutor(), tmp_path)
    (loaded,) = again.map(_identity, [value])
    assert again.hits == 1
    assert _same(value, loaded)


def test_round_trip_keeps_frame_dtypes():
    frame = _frame()
    back = decode(json.loads(json.dumps(encode(frame))))
    assert back.dtypes.to_dict() == frame.dtypes.to_dict()
    assert list(back.columns) == list(frame.columns)


@pytest.mark.parametrize(
    "value",
    [
        {1, 2},
        np.array([object()], dtype=object),
        pd.DataFrame({"c": pd.Categorical(["a"])}),
        pd.DataFrame({"a": [1]}, index=["r"]),
        (lambda: None),
    ],
    ids=["set", "object-array", "categorical", "labelled-index", "function"],
)
def test_unsupported_values_are_not_encoded(value):
    with pytest.raises(UnsupportedValueError):
        encode(value)


def test_unsupported_result_is_computed_but_not_kept(tmp_path):
    cache = CachingExecutor(SerialExecutor(), tmp_path)
    with pytest.warns(TaskCacheWarning, match="not kept"):
        assert cache.map(_identity, [{1, 2}]) == [{1, 2}]
    assert not list(tmp_path.glob("*"))
    with pytest.warns(TaskCacheWarning, match="not kept"):
        assert cache.map(_identity, [{1, 2}]) == [{1, 2}]
    assert cache.misses == 1


def _entry(tmp_path: Path) -> tuple[functools.partial[int], Path]:
    fn = functools.partial(_square, 1)
    CachingExecutor(SerialExecutor(), tmp_path).map(fn, [4])
    return fn, tmp_path / f"{task_key(fn, 4)}.jsonl"


def _signed(raw: bytes, body: bytes) -> bytes:
    """Replace an entry's value by ``body`` and fix its checksum, as a deliberate forger would."""
    header = json.loads(raw.split(b"\n")[0])
    header["sha256"] = hashlib.sha256(body).hexdigest()
    return json.dumps(header).encode() + b"\n" + body


@pytest.mark.parametrize(
    "tamper",
    [
        lambda raw: b"",
        lambda raw: b"not json at all",
        lambda raw: raw.replace(b"17", b"18"),  # the value, without fixing the checksum
        lambda raw: raw.replace(b'"version": 2', b'"version": 99'),
        lambda raw: _signed(raw, json.dumps({"~": "exec", "items": []}).encode()),
        lambda raw: _signed(raw, b"[" * 100_000 + b"]" * 100_000),
        lambda raw: _signed(raw, pickle.dumps(17)),
    ],
    ids=["empty", "garbage", "edited", "other-version", "unknown-tag", "deep", "pickle-body"],
)
def test_tampered_entry_is_refused_with_a_warning(tmp_path, tamper):
    fn, entry = _entry(tmp_path)
    entry.write_bytes(tamper(entry.read_bytes()))
    cache = CachingExecutor(SerialExecutor(), tmp_path)
    with pytest.warns(TaskCacheWarning, match="refused"):
        assert cache.map(fn, [4]) == [17]
    assert (cache.hits, cache.misses) == (0, 1)


def test_entry_of_another_task_is_refused(tmp_path):
    fn, entry = _entry(tmp_path)
    other = tmp_path / f"{task_key(fn, 5)}.jsonl"
    other.write_bytes(entry.read_bytes())  # a valid entry, under another task's name
    cache = CachingExecutor(SerialExecutor(), tmp_path)
    with pytest.warns(TaskCacheWarning, match="another key"):
        assert cache.map(fn, [5]) == [26]


@pytest.mark.parametrize(
    "data",
    [
        {"~": "ndarray", "dtype": "|O", "shape": [1], "data": "AAAAAAAAAAA="},
        {"~": "ndarray", "dtype": "<f8", "shape": [2], "data": "AAAAAAAAAAA="},
        {"~": "dict", "items": [[[1], 2]]},
        {"~": "numpy", "dtype": "<f8", "shape": [1], "data": "AAAAAAAAAAA="},
        {"~": "trace", "steps": {"~": "dataframe", "index": [0, 0, 1], "columns": []}, "meta": 1},
        {"no tag": 1},
    ],
    ids=[
        "object-dtype",
        "short-buffer",
        "unhashable-key",
        "scalar-shape",
        "bad-trace",
        "untagged",
    ],
)
def test_decoding_refuses_what_encoding_never_writes(data):
    with pytest.raises(CorruptValueError):
        decode(data)


def test_an_entry_linked_to_a_device_is_refused_not_read(tmp_path):
    fn, entry = _entry(tmp_path)
    entry.unlink()
    entry.symlink_to("/dev/zero")  # read whole, it would fill memory
    cache = CachingExecutor(SerialExecutor(), tmp_path)
    with pytest.warns(TaskCacheWarning, match="not a regular file"):
        assert cache.map(fn, [4]) == [17]
