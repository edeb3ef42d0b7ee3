"""entropy_order's head: the first rows of the full order, found without sorting the pool."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.acquisition.methods._entropy import _head


@given(
    values=st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.9, 1.0]), min_size=0, max_size=60),
    limit=st.integers(0, 70),
    seed=st.integers(0, 2**16),
)
@settings(max_examples=200, deadline=None)
def test_the_head_sorts_like_the_whole_order(values, limit, seed):
    # Few distinct values: ties at the cut-off are the case to get right.
    key = np.asarray(values, dtype=np.float64)
    tiebreak = np.random.default_rng(seed).random(key.size)
    whole = np.lexsort((tiebreak, key))[:limit]
    head = _head(key, limit)
    assert head[np.lexsort((tiebreak[head], key[head]))][:limit].tolist() == whole.tolist()


def test_no_limit_or_a_large_one_keeps_every_position():
    key = np.array([3.0, 1.0, 2.0])
    assert _head(key, None).tolist() == [0, 1, 2]
    assert _head(key, 5).tolist() == [0, 1, 2]
    assert _head(key, 1).tolist() == [1]
