"""The run skeleton (fairacq._loop) and the seeding helpers it uses."""

from __future__ import annotations

from collections.abc import Mapping
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
    assert a.run(train, pool, validation=val) == b.run(train, pool, validation=val)
    assert isinstance(a.trace_, Trace)
