"""Scattered rows of the local feature copy come back the same with or without ``preadv``."""

from __future__ import annotations

import numpy as np
import pytest

import fairacq.acquisition.pools._feature_cache as feature_cache
from fairacq.acquisition.pools._feature_cache import FeatureCache


@pytest.mark.parametrize("preadv", [True, False])
def test_scattered_rows_read_one_at_a_time(monkeypatch, preadv):
    monkeypatch.setattr(feature_cache, "_PREADV", preadv and feature_cache._PREADV)
    X = np.random.default_rng(1).normal(size=(4000, 5))
    cache = FeatureCache([X[:1500], X[1500:]], n_rows=4000, n_features=5, chunk_rows=1024)
    pos = np.array([3999, 0, 2048, 17, 17, 1023, 1024])  # few a stretch: a read a row
    np.testing.assert_array_equal(cache.rows(pos), X[pos])
    cache.close()


def test_a_short_read_is_completed(monkeypatch):
    X = np.arange(60.0).reshape(20, 3)
    cache = FeatureCache([X], n_rows=20, n_features=3, chunk_rows=64)
    monkeypatch.setattr(feature_cache.os, "preadv", lambda fd, bufs, offset: 0, raising=False)
    monkeypatch.setattr(feature_cache, "_PREADV", True)
    np.testing.assert_array_equal(cache.rows(np.array([19, 2])), X[[19, 2]])
    cache.close()
