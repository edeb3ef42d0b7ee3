"""The verdict against Uniform: a paired 95 % interval, 'beats' only when it is above zero."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairacq.data import load_toy
from fairacq.sampling import compare_to_baseline, run_sampler_trials, trials_are_paired


def test_a_consistent_gain_beats_uniform():
    v = compare_to_baseline([0.80, 0.82, 0.81, 0.79], [0.70, 0.71, 0.70, 0.69], paired=True)
    assert v.verdict == "beats Uniform"
    assert v.beats
    assert v.low > 0
    assert v.difference == pytest.approx(0.105)


def test_the_issue_numbers_are_within_noise():
    # 0.789 +- 0.004 against 0.786 +- 0.006 over trials: the gap is inside the spread.
    rng = np.random.default_rng(0)
    uniform = 0.786 + rng.normal(0, 0.006, 10)
    aopt = 0.789 + rng.normal(0, 0.004, 10)
    v = compare_to_baseline(aopt, uniform, paired=True, method="aopt")
    assert v.verdict == "no better than Uniform within the trials' spread"
    assert not v.beats
    assert v.low < 0 < v.high
    assert "within the trials' spread" in v.sentence()
    assert v.sentence().startswith("aopt minus Uniform, worst-group test accuracy: ")


def test_a_consistent_loss_is_worse():
    v = compare_to_baseline([0.60, 0.61, 0.62], [0.70, 0.70, 0.71], paired=True)
    assert v.verdict == "worse than Uniform"
    assert v.high < 0


def test_pairing_removes_the_shared_split_noise():
    # Each split moves both methods alike; the method is always 0.01 ahead.
    split = np.array([0.60, 0.75, 0.68, 0.82, 0.71, 0.65])
    method = split + 0.01 + np.array([0.001, -0.001, 0.0, 0.001, -0.001, 0.0])
    paired = compare_to_baseline(method, split, paired=True)
    unpaired = compare_to_baseline(method, split, paired=False)
    assert paired.verdict == "beats Uniform"
    assert unpaired.verdict.startswith("no better")
    assert unpaired.high - unpaired.low > 10 * (paired.high - paired.low)


def test_one_trial_cannot_tell():
    v = compare_to_baseline([0.8], [0.7], paired=True)
    assert v.verdict == "too few trials to tell"
    assert v.difference == pytest.approx(0.1)
    assert v.to_dict()["low"] is None
    json.dumps(v.to_dict())


def test_nan_trials_are_left_out_in_pairs():
    v = compare_to_baseline([0.8, np.nan, 0.81, 0.82], [0.7, 0.7, np.nan, 0.71], paired=True)
    assert v.n_trials == 2
    assert v.difference == pytest.approx(0.105)


def test_same_seeds_are_paired_other_seeds_are_not():
    toy = load_toy(200)
    a = run_sampler_trials(toy, "uniform", n_trials=2, budget=20, random_state=0)
    b = run_sampler_trials(toy, "aopt", n_trials=2, budget=20, random_state=0)
    c = run_sampler_trials(toy, "aopt", n_trials=2, budget=20, random_state=1)
    assert trials_are_paired(a, b)
    assert not trials_are_paired(a, c)
    assert not trials_are_paired(a, b[:1])
    assert not trials_are_paired([], [])
