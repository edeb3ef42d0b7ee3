"""The run skeleton (fairacq._loop) and the seeding helpers it uses."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fairacq import CheckpointCallback, Trace
from fairacq._loop import RunLoop, load_checkpoint, run_loop
from fairacq._random import KEY_INIT, child, child_int, root_seed, seed_state
from fairacq.exceptions import InvalidDataError, InvalidParameterError


class _Walk(RunLoop):
    """A random walk: each step adds a draw from the step's own stream."""

    def __init__(self, n: int) -> None:
        self.n, self.position, self.replayed = n, 0.0, 0

    def start(self, root: np.random.SeedSequence) -> Mapping[str, Any]:
        self.root = root
        return {"cost": 0.0, "position": 0.0}

    def replay(self, row: Mapping[str, Any]) -> None:
        self.position = float(row["position"])
        self.replayed += 1

    def stop_reason(self) -> str | None:
        return "budget" if self.k >= self.n else None

    @property
    def k(self) -> int:
        return self._k if hasattr(self, "_k") else 0

    def restore(self, state: Mapping[str, Any]) -> None:
        self._k = int(state["k"])

    def step(self, index: int) -> Mapping[str, Any]:
        self.position += float(np.random.default_rng(child(self.root, index)).normal())
        self._k = self.k + 1
        return {"cost": float(self.k), "position": self.position}

    def resume_state(self) -> dict[str, Any]:
        return {"k": self.k}


def test_same_seed_same_trace_and_stop_reason() -> None:
    a = run_loop(_Walk(5), method="walk", config={}, random_state=1)
    b = run_loop(_Walk(5), method="walk", config={}, random_state=1)
    assert a.trace == b.trace
    assert a.stop_reason == "budget"
    assert len(a.trace) == 6
    c = run_loop(_Walk(5), method="walk", config={}, random_state=2)
    assert c.trace != a.trace


@pytest.mark.parametrize("k", [1, 3, 5])
def test_interrupt_then_resume_equals_uninterrupted_even_unseeded(k: int, tmp_path) -> None:
    class Stop(Exception):
        pass

    def interrupt(rec: Any) -> None:
        if rec.n_steps > k:
            raise Stop

    ck = CheckpointCallback(tmp_path / "run", every=1)
    with pytest.raises(Stop):
        run_loop(_Walk(6), method="walk", config={}, random_state=None, callbacks=[ck, interrupt])
    walk = _Walk(6)
    resumed = run_loop(
        walk, method="walk", config={}, random_state=None, continue_from=tmp_path / "run"
    )
    assert walk.replayed == k + 1
    seed = int(resumed.trace.meta["resume_state"]["entropy"])
    full = run_loop(_Walk(6), method="walk", config={}, random_state=seed)
    assert resumed.trace.to_frame().equals(full.trace.to_frame())


def test_callback_returning_false_stops_and_other_method_is_refused(tmp_path) -> None:
    out = run_loop(_Walk(9), method="walk", config={}, random_state=0, callbacks=[lambda r: False])
    assert out.stop_reason == "callback"
    assert len(out.trace) == 2
    with pytest.raises(InvalidDataError, match="not a 'other' one"):
        run_loop(_Walk(9), method="other", config={}, random_state=0, continue_from=out.trace)


def test_load_checkpoint_takes_a_trace_a_path_or_a_folder(tmp_path) -> None:
    trace = run_loop(_Walk(2), method="walk", config={}, random_state=0).trace
    assert load_checkpoint(trace) is trace
    trace.save(tmp_path / "a")
    (tmp_path / "folder").mkdir()
    trace.save(tmp_path / "folder" / "trace")
    assert load_checkpoint(tmp_path / "a") == trace == load_checkpoint(tmp_path / "folder")


def test_root_seed_accepts_every_random_state_form() -> None:
    assert root_seed(3).entropy == 3
    seq = np.random.SeedSequence(9, spawn_key=(2,))
    assert root_seed(seq) is seq
    assert (
        root_seed(np.random.default_rng(0)).entropy == root_seed(np.random.default_rng(0)).entropy
    )
    rs_a, rs_b = np.random.RandomState(4), np.random.RandomState(4)
    assert root_seed(rs_a).entropy == root_seed(rs_b).entropy
    assert root_seed(None).entropy != root_seed(None).entropy
    saved = seed_state(child(root_seed(7), 1))
    back = root_seed(123, saved)  # a checkpoint's root wins over the strategy's seed
    assert (back.entropy, back.spawn_key) == (7, (1,))
    with pytest.raises(InvalidParameterError):
        root_seed(-1)


def test_children_are_fixed_and_distinct() -> None:
    root = root_seed(0)
    root.spawn(3)  # spawning does not move fixed children
    assert child_int(root, 1) == child_int(root_seed(0), 1)
    assert child_int(root, 1) != child_int(root, 2) != child_int(root, KEY_INIT)


def test_strategies_accept_a_random_state() -> None:
    from fairacq.acquisition import RandomAcquirer
    from fairacq.data import load_toy

    ds = load_toy(300, random_state=0)
    train, val, pool = ds.subset(range(60)), ds.subset(range(60, 120)), ds.subset(range(120, 300))
    a = RandomAcquirer(budget=40, batch_size=20, random_state=np.random.RandomState(1))
    b = RandomAcquirer(budget=40, batch_size=20, random_state=np.random.RandomState(1))
    assert a.fit(train, pool, validation=val).trace_ == b.fit(train, pool, validation=val).trace_
    assert isinstance(a.trace_, Trace)


class _Weights(_Walk):
    """A walk whose state is more than its trace: a weight vector updated at every step."""

    checkpoint_after_start = True

    def start(self, root: np.random.SeedSequence) -> list[Mapping[str, Any]]:
        super().start(root)
        self.weights = np.zeros(3)
        self.started_fresh = not self.resuming
        if self.resuming:
            return []
        self.weights += 1.0  # an expensive "pre-training" the checkpoint keeps
        return [{"cost": 0.0, "position": 0.0, "phase": "pre"}] * 2

    def step(self, index: int) -> Mapping[str, Any]:
        row = dict(super().step(index))
        self.weights = self.weights * 0.5 + np.random.default_rng(
            child(self.root, index, 1)
        ).normal(size=3)
        return {**row, "phase": "main"}

    def write_state(self, folder: Path) -> None:
        np.save(folder / "weights.npy", self.weights)

    def read_state(self, folder: Path) -> None:
        self.weights = np.load(folder / "weights.npy")


class _Stop(Exception):
    pass


def _interrupt_after(k: int) -> Any:
    def callback(rec: Any) -> None:
        if rec.n_steps > k:
            raise _Stop

    return callback


@pytest.mark.parametrize("k", [2, 3, 6])
def test_state_files_checkpoint_folder_resumes_bit_for_bit(k: int, tmp_path: Path) -> None:
    full_loop = _Weights(6)
    full = run_loop(full_loop, method="w", config={}, random_state=5)
    assert full.trace.to_frame()["phase"].tolist()[:3] == ["pre", "pre", "main"]
    ck = tmp_path / "ck"
    with pytest.raises(_Stop):
        run_loop(
            _Weights(6),
            method="w",
            config={},
            random_state=5,
            callbacks=[CheckpointCallback(ck, every=1), _interrupt_after(k)],
        )
    assert sorted(p.name for p in ck.iterdir()) == ["trace.json", "trace.parquet", "weights.npy"]
    assert not list(tmp_path.glob(".ck.*"))  # no partial or previous folder left behind
    assert len(Trace.load(ck)) == k + 1
    for source in (ck, Trace.load(ck)):
        loop = _Weights(6)
        resumed = run_loop(loop, method="w", config={}, random_state=5, continue_from=source)
        assert not loop.started_fresh
        assert resumed.trace == full.trace
        assert np.array_equal(loop.weights, full_loop.weights)


def test_a_checkpoint_is_written_after_start_when_the_loop_asks(tmp_path: Path) -> None:
    ck = tmp_path / "ck"
    with pytest.raises(_Stop):
        run_loop(
            _Weights(6),
            method="w",
            config={},
            random_state=5,
            callbacks=[CheckpointCallback(ck, every=50), _interrupt_after(1)],
        )
    assert Trace.load(ck).to_frame()["phase"].tolist() == ["pre", "pre"]
    assert np.array_equal(np.load(ck / "weights.npy"), np.ones(3))


def test_state_files_need_the_folder_not_a_bare_trace(tmp_path: Path) -> None:
    trace = run_loop(_Weights(2), method="w", config={}, random_state=0).trace
    with pytest.raises(InvalidDataError, match="checkpoint folder"):
        run_loop(_Weights(2), method="w", config={}, random_state=0, continue_from=trace)


def test_a_write_cut_short_leaves_the_previous_checkpoint_whole(tmp_path: Path) -> None:
    from fairacq._checkpoint import resolve_checkpoint, write_checkpoint

    trace = run_loop(_Walk(2), method="walk", config={}, random_state=0).trace
    ck = tmp_path / "ck"
    write_checkpoint(ck, trace, lambda f: (f / "state.txt").write_text("old"))

    def broken(folder: Path) -> None:
        (folder / "state.txt").write_text("half")
        raise KeyboardInterrupt  # killed while writing its files

    with pytest.raises(KeyboardInterrupt):
        write_checkpoint(ck, trace, broken)
    assert (ck / "state.txt").read_text() == "old"
    assert Trace.load(ck) == trace
    # killed between moving the old folder aside and moving the new one in
    ck.rename(tmp_path / ".ck.previous")
    assert resolve_checkpoint(ck) == tmp_path / ".ck.previous"
    assert load_checkpoint(ck) == trace
    write_checkpoint(ck, trace, lambda f: (f / "state.txt").write_text("new"))
    assert (ck / "state.txt").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ck"]


def test_a_folder_of_other_files_is_never_replaced(tmp_path: Path) -> None:
    from fairacq._checkpoint import write_checkpoint

    trace = run_loop(_Walk(2), method="walk", config={}, random_state=0).trace
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "keep.csv").write_text("x")
    with pytest.raises(InvalidParameterError, match="folder of its own"):
        write_checkpoint(tmp_path / "results", trace, lambda f: None)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidParameterError, match="is a file"):
        write_checkpoint(tmp_path / "file", trace, lambda f: None)
    assert (tmp_path / "results" / "keep.csv").read_text() == "x"


def test_trace_only_checkpoint_into_an_existing_folder(tmp_path: Path) -> None:
    (tmp_path / "ck").mkdir()
    with pytest.raises(_Stop):
        run_loop(
            _Walk(6),
            method="walk",
            config={},
            random_state=0,
            callbacks=[CheckpointCallback(tmp_path / "ck", every=1), _interrupt_after(2)],
        )
    assert sorted(p.name for p in (tmp_path / "ck").iterdir()) == ["trace.json", "trace.parquet"]
    resumed = run_loop(
        _Walk(6), method="walk", config={}, random_state=0, continue_from=tmp_path / "ck"
    )
    assert resumed.trace == run_loop(_Walk(6), method="walk", config={}, random_state=0).trace


def test_iter_loop_yields_rows_and_reports_a_closed_run() -> None:
    from fairacq._loop import LoopResult, iter_loop

    seen: list[LoopResult] = []
    rows = iter_loop(_Walk(5), method="walk", config={}, random_state=0, on_stop=seen.append)
    assert [r["cost"] for r in itertools.islice(rows, 2)] == [1.0, 2.0]
    rows.close()
    assert seen[0].stop_reason == "closed"
    assert len(seen[0].trace) == 3  # step 0 and two steps


def test_tensors_load_without_running_code(tmp_path: Path) -> None:
    import torch

    from fairacq._checkpoint import load_tensors, save_tensors
    from fairacq.exceptions import CorruptFileError

    save_tensors({"w": torch.arange(3.0), "n": 2}, tmp_path / "t.pt")
    out = load_tensors(tmp_path / "t.pt")
    assert torch.equal(out["w"], torch.arange(3.0))
    assert out["n"] == 2
    torch.save({"f": _Walk}, tmp_path / "code.pt")  # a pickled class: refused
    with pytest.raises(CorruptFileError, match="cannot be read"):
        load_tensors(tmp_path / "code.pt")
    with pytest.raises(CorruptFileError, match="missing"):
        load_tensors(tmp_path / "none.pt")


class _Probe:
    """A resume-state value that counts how often it is converted to JSON (its repr)."""

    def __init__(self) -> None:
        self.encoded = 0

    def __repr__(self) -> str:
        self.encoded += 1
        return "probe"


class _ProbedWalk(_Walk):
    def __init__(self, n: int, probe: _Probe) -> None:
        super().__init__(n)
        self.probe = probe

    def resume_state(self) -> dict[str, Any]:
        return {**super().resume_state(), "probe": self.probe}


@pytest.mark.parametrize(("every", "encodings"), [(None, 1), (10, 4 + 1)])
def test_resume_state_is_encoded_only_for_checkpoints_and_the_end(
    every: int | None, encodings: int, tmp_path: Path
) -> None:
    probe = _Probe()
    callbacks = [] if every is None else [CheckpointCallback(tmp_path / "ck", every=every)]
    out = run_loop(
        _ProbedWalk(40, probe), method="walk", config={}, random_state=0, callbacks=callbacks
    )
    # not once per step (40): a long run's state is not re-encoded at every step
    assert probe.encoded == encodings
    assert out.trace.meta["resume_state"] == {
        **seed_state(root_seed(0)),
        "k": 40,
        "probe": "probe",
    }
