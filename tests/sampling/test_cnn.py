"""The incremental CNN learner (paper 001, §4 incremental mode on images)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.sampling import AoptSampler, CallbackOracle, IncrementalCNN

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


def _images(n: int, seed: int, side: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Bright left half (y = 0) or bright right half (y = 1), plus noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    img = rng.random((n, side, side)) * 0.3
    half = side // 2
    img[y == 0, :, :half] += 0.7
    img[y == 1, :, half:] += 0.7
    return img.reshape(n, side * side), y


def test_learns_and_is_seeded(seed: int) -> None:
    X, y = _images(200, seed)
    a, b = IncrementalCNN(seed=seed), IncrementalCNN(seed=seed)
    np.testing.assert_allclose(a.predict_proba(X[:2]), 0.5)
    for s in range(4):
        a.update(X, y, seed=s)
        b.update(X, y, seed=s)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    Xt, yt = _images(200, seed + 1)
    assert np.mean((a.predict_proba(Xt) >= 0.5) == yt) > 0.95
    c = IncrementalCNN(seed=seed + 1)
    c.update(X, y, seed=0)
    assert not np.array_equal(c.predict_proba(X), a.predict_proba(X))


def test_updates_continue_from_previous_weights() -> None:
    X, y = _images(64, 0)
    model = IncrementalCNN(seed=0, batch_size=16)
    model.update(X, y, seed=0)
    after_one = model.predict_proba(X)
    model.update(X, y, seed=1)
    fresh = IncrementalCNN(seed=0, batch_size=16)
    fresh.update(X, y, seed=0)
    np.testing.assert_array_equal(fresh.predict_proba(X), after_one)
    assert not np.array_equal(model.predict_proba(X), after_one)


def test_state_round_trip_is_exact() -> None:
    X, y = _images(80, 2, side=12)
    model = IncrementalCNN(image_shape=(12, 12), seed=3)
    assert model.state() == {"weights": None}
    for s in range(2):
        model.update(X, y, seed=s)
    copy = IncrementalCNN(image_shape=(12, 12), seed=99)
    copy.load_state(json.loads(json.dumps(model.state())))
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))
    model.update(X, y, seed=7)
    copy.update(X, y, seed=7)
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))
    copy.load_state({"weights": None})
    np.testing.assert_allclose(copy.predict_proba(X[:2]), 0.5)


def test_rectangular_images_need_image_shape() -> None:
    rng = np.random.default_rng(0)
    X, y = rng.random((10, 8 * 12)), np.array([0, 1] * 5)
    with pytest.raises(InvalidDataError, match="image_shape"):
        IncrementalCNN().update(X, y, seed=0)
    model = IncrementalCNN(image_shape=(8, 12))
    model.update(X, y, seed=0)
    assert model.predict_proba(X).shape == (10,)
    with pytest.raises(InvalidDataError, match="96 pixels"):
        model.predict_proba(X[:, :64])


@pytest.mark.parametrize(
    "kwargs", [{"lr": 0.0}, {"batch_size": 0}, {"channels": (8,)}, {"channels": (0, 4)}]
)
def test_bad_hyper_parameters(kwargs: dict) -> None:
    with pytest.raises(InvalidParameterError, match="IncrementalCNN needs"):
        IncrementalCNN(**kwargs)


def test_samplers_take_the_cnn_by_mode_and_resume_exactly() -> None:
    def fn(group: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        X, y = _images(n, int(rng.integers(2**31)))
        if group == "hard":  # labels flipped 30% of the time
            flip = rng.random(n) < 0.3
            y = np.where(flip, 1 - y, y)
        return X, y

    oracle = CallbackOracle(fn, ["easy", "hard"])
    full = (
        AoptSampler(budget=60, b0=2, mode="incremental-cnn", random_state=0)
        .fit(oracle, test=40)
        .trace_
    )
    assert full.final("cost") == 60.0
    assert full.final("test_acc_easy") > 0.9
    head = (
        AoptSampler(budget=30, b0=2, mode="incremental-cnn", random_state=0)
        .fit(oracle, test=40)
        .trace_
    )
    resumed = (
        AoptSampler(budget=60, b0=2, mode="incremental-cnn", random_state=0)
        .fit(oracle, test=40, continue_from=head)
        .trace_
    )
    np.testing.assert_array_equal(
        resumed.to_frame()["val_loss_hard"], full.to_frame()["val_loss_hard"]
    )
