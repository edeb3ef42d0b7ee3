from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from fairacq.exceptions import InvalidDataError
from fairacq.features import SetEncoder
from fairacq.features.dadi._elements import HotElements
from fairacq.features.dadi._encoder import reset_parameters


@st.composite
def _tables(draw):
    """Feature groups, rows of one-hot groups and numeric columns, and observed groups."""
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    groups = np.repeat(np.arange(len(sizes)), sizes)
    n_rows = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    values = np.zeros((n_rows, groups.size), dtype=np.float32)
    start = 0
    for size in sizes:
        if size == 1:
            values[:, start] = rng.normal(size=n_rows)
        else:  # one hot column, or none (a dropped reference category)
            hot = rng.integers(-1, size, n_rows)
            rows = np.flatnonzero(hot >= 0)
            values[rows, start + hot[rows]] = 1.0
        start += size
    seen = rng.random((n_rows, len(sizes))) < 0.6
    return groups, values, seen[:, groups]


def _decode(groups, kept, values):
    """Recover the observed mask and values from the kept elements alone."""
    n_groups = groups.max() + 1
    seen = np.zeros((kept.shape[0], n_groups), dtype=bool)
    for g in range(n_groups):
        seen[:, g] = kept[:, groups == g].any(axis=1)
    mask = seen[:, groups]
    return mask, np.where(kept, values, 0.0)


@settings(max_examples=80, deadline=None)
@given(_tables())
def test_hot_elements_are_lossless_and_one_per_group(table):
    groups, values, mask = table
    kept = HotElements(groups)(torch.from_numpy(values), torch.from_numpy(mask)).numpy()
    assert not (kept & ~mask).any()  # only observed columns
    mask_back, values_back = _decode(groups, kept, values)
    np.testing.assert_array_equal(mask_back, mask)
    np.testing.assert_array_equal(values_back[mask], values[mask])
    for g in np.unique(groups):
        cols = groups == g
        per_row = kept[:, cols].sum(axis=1)
        if cols.sum() > 1:  # a one-hot group enters as one element when seen
            np.testing.assert_array_equal(per_row, mask[:, cols].any(axis=1))
        else:
            np.testing.assert_array_equal(kept[:, cols], mask[:, cols])


def test_hot_elements_reject_bad_groups():
    with pytest.raises(InvalidDataError, match="column_groups"):
        HotElements([])
    with pytest.raises(InvalidDataError, match="column_groups"):
        HotElements([0, -1])


def test_encoder_with_hot_elements_reads_the_reduced_set():
    groups = [0, 1, 1, 1, 2, 2]
    hot = HotElements(groups)
    plain, reduced = SetEncoder(6), SetEncoder(6, elements=hot)
    reset_parameters(plain, torch.Generator().manual_seed(0))
    reduced.load_state_dict(plain.state_dict())  # the same parameters
    values = torch.tensor([[0.3, 0, 1, 0, 0, 1], [1.2, 0, 0, 0, 1, 0], [0.0, 1, 0, 0, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 1]]).bool()
    torch.testing.assert_close(reduced(values, mask), plain(values, hot(values, mask)))
    assert not torch.allclose(reduced(values, mask), plain(values, mask))
    with pytest.raises(InvalidDataError, match="describe 6 columns, the encoder 7"):
        SetEncoder(7, elements=hot)
