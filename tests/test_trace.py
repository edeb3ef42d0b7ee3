from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from fairacq import CheckpointCallback, Trace, TraceRecorder
from fairacq._callbacks import run_callbacks
from fairacq.exceptions import CorruptFileError, InvalidDataError


def _trace(seed=0, n=3) -> Trace:
    rec = TraceRecorder(
        method="demo", config={"budget": n, "tuple": (1, 2)}, random_state=seed, dataset="toy"
    )
    rng = np.random.default_rng(seed)
    for i in range(n):
        rec.record(
            cost=i + 1,
            accuracy=float(rng.random()),
            chosen=[int(i), int(i) + 1],
            group="a" if i % 2 else "b",
            accepted=bool(i % 2),
        )
    return rec.finish()


def test_trace_roundtrip_and_equality(tmp_path):
    t = _trace()
    path = t.save(tmp_path / "run")
    assert path.suffix == ".parquet"
    assert (tmp_path / "run.json").exists()
    loaded = Trace.load(tmp_path / "run.parquet")
    assert loaded == t
    assert pickle.loads(pickle.dumps(t)) == t
    assert loaded.meta["config"] == {"budget": 3, "tuple": [1, 2]}
    assert loaded.meta["seed"] == 0
    assert loaded.meta["dataset"] == "toy"
    assert "fairacq_version" in loaded.meta
    assert "elapsed_s" in loaded.meta
    assert _trace(seed=1) != t
    assert t.metrics == ["accuracy"]


def test_trace_is_immutable():
    t = _trace()
    frame = t.to_frame()
    frame.loc[0, "accuracy"] = -1.0
    assert t.to_frame().loc[0, "accuracy"] != -1.0
    meta = t.meta
    meta["method"] = "other"
    assert t.method == "demo"


def test_summary_and_final():
    t = _trace(n=2)
    assert t.summary()["cost"] == 2.0
    assert t.final("accuracy") == t.to_frame()["accuracy"].iloc[-1]
    with pytest.raises(InvalidDataError, match="no column 'nope'"):
        t.final("nope")


def test_trace_requires_step_and_cost():
    with pytest.raises(InvalidDataError, match="cost"):
        Trace(pd.DataFrame({"step": [0]}), {})


def test_load_missing_and_corrupt(tmp_path):
    with pytest.raises(CorruptFileError, match="missing"):
        Trace.load(tmp_path / "none")
    t = _trace()
    t.save(tmp_path / "x")
    (tmp_path / "x.parquet").write_bytes(b"not parquet")
    with pytest.raises(CorruptFileError, match="cannot be read"):
        Trace.load(tmp_path / "x")


def test_resume_keeps_rows_and_checkpoint(tmp_path):
    rec = TraceRecorder(method="m", config={}, random_state=0)
    ckpt = CheckpointCallback(tmp_path / "ckpt", every=2)
    for i in range(4):
        rec.record(cost=i)
        assert run_callbacks([ckpt], rec)
    saved = Trace.load(tmp_path / "ckpt")
    assert len(saved) == 4
    assert saved.meta["checkpoint"] is True
    rec2 = TraceRecorder(method="m", config={}, random_state=0, continue_from=saved)
    rec2.record(cost=9)
    resumed = rec2.finish()
    assert resumed.to_frame()["step"].tolist() == [0, 1, 2, 3, 4]
    assert resumed.meta["resumed_at_step"] == 4
    assert not run_callbacks([lambda r: False], rec2)
    with pytest.raises(ValueError, match="every"):
        CheckpointCallback(tmp_path / "c", every=0)


def test_plot_smoke():
    ax = _trace().plot("accuracy", reference=0.5)
    assert ax.get_ylabel() == "accuracy"
    assert len(ax.lines) == 2


def test_a_torn_or_mixed_pair_of_trace_files_is_refused(tmp_path):
    """A checkpoint at step 12 whose sidecar is from step 10 (a kill between the two writes,
    or one file copied over) is refused with one line; a sidecar from before the pair was
    recorded is still read."""
    import json
    import shutil

    def run(n):
        rec = TraceRecorder(method="m", config={}, random_state=0)
        for i in range(n):
            rec.record(cost=i, accuracy=i / 20)
        return rec.finish()

    run(10).save(tmp_path / "ten")
    run(12).save(tmp_path / "twelve")
    shutil.copy(tmp_path / "ten.json", tmp_path / "twelve.json")
    with pytest.raises(CorruptFileError, match=r"\(12 steps\) and twelve.json \(written for 10"):
        Trace.load(tmp_path / "twelve")
    rec = TraceRecorder(method="m", config={}, random_state=1)
    for i in range(10):
        rec.record(cost=i, accuracy=0.5)
    rec.finish().save(tmp_path / "other")
    shutil.copy(tmp_path / "ten.json", tmp_path / "other.json")  # same length, other values
    with pytest.raises(CorruptFileError, match="do not belong together"):
        Trace.load(tmp_path / "other")
    old = json.loads((tmp_path / "ten.json").read_text())
    del old["trace_file"]  # what earlier versions wrote
    (tmp_path / "ten.json").write_text(json.dumps(old))
    assert Trace.load(tmp_path / "ten") == run(10)
    assert (
        "trace_file" not in Trace.load(tmp_path / "twelve.parquet".replace("twelve", "ten")).meta
    )


def test_resume_state_is_a_snapshot_encoded_when_a_trace_is_built():
    rec = TraceRecorder(method="demo", config={}, random_state=0)
    rec.record(cost=0)
    values = np.arange(3)
    rec.set_resume_state({"rows": values[:2], "n": np.int64(2)})
    keys = list(rec.finish().meta)
    assert keys.index("resume_state") < keys.index("fairacq_version")  # its place, as before
    assert rec.finish().meta["resume_state"] == {"rows": [0, 1], "n": 2}
    rec.record(cost=1)
    rec.set_resume_state({"rows": values, "n": 3})
    assert rec.finish().meta["resume_state"] == {"rows": [0, 1, 2], "n": 3}


def test_a_dot_in_the_name_is_part_of_the_name(tmp_path):
    trace = _trace()
    trace.save(tmp_path / "run.v2")
    trace.save(tmp_path / "run.v3.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "run.v2.json",
        "run.v2.parquet",
        "run.v3.json",
        "run.v3.parquet",
    ]
    assert Trace.load(tmp_path / "run.v2") == trace
    assert Trace.load(tmp_path / "run.v3.json") == trace
