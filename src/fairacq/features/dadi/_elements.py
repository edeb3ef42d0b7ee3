"""Which observed columns enter DADI's set encoder as elements.

Appendix A of Bakker et al. makes every observed column an element ``[x_j, I(j)]`` of the set,
so an observed categorical feature with ``k`` one-hot columns gives ``k`` elements, ``k - 1``
of them zeros. Their zeros carry no information once the group is known to be observed: the
one hot column (or, for an all-zero group, the fact that none is hot) says it all.
:class:`HotElements` keeps, for every feature group of several columns, only its non-zero
columns, and the group's first column when all of them are zero. The set then has at most one
element per one-hot group, and the encoder's cost falls with it (ACS Income: 776 columns, 10
groups); single-column features are kept as they are.

The reduction is lossless: from the kept elements and the groups one recovers every observed
value and which groups were observed (a property test decodes it).
"""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import ArrayLike

from fairacq.exceptions import InvalidDataError

__all__ = ["HotElements"]


class HotElements:
    """Reduce a column mask to the elements a one-hot aware set encoder reads.

    Parameters
    ----------
    column_groups : array-like of int, shape (n_columns,)
        The feature group of each column (e.g. :attr:`ActionSpace.column_action`); columns
        of one group are bought together.

    Examples
    --------
    >>> hot = HotElements([0, 1, 1, 1])  # age, then a categorical with three columns
    >>> values = torch.tensor([[0.5, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    >>> mask = torch.tensor([[True, True, True, True], [True, True, True, True]])
    >>> hot(values, mask).tolist()
    [[True, False, True, False], [True, True, False, False]]
    """

    def __init__(self, column_groups: ArrayLike) -> None:
        groups = np.asarray(column_groups, dtype=np.int64)
        if groups.ndim != 1 or groups.size == 0 or groups.min() < 0:
            raise InvalidDataError(
                "HotElements: column_groups must be a non-empty list of group indices >= 0, "
                f"got {np.asarray(column_groups).tolist()!r}."
            )
        self.column_groups = tuple(int(g) for g in groups)
        n_groups = int(groups.max()) + 1
        sizes = np.bincount(groups, minlength=n_groups)
        first = np.full(n_groups, groups.size, dtype=np.int64)
        np.minimum.at(first, groups, np.arange(groups.size))
        member = np.zeros((groups.size, n_groups), dtype=np.float32)
        member[np.arange(groups.size), groups] = 1.0
        multi_group = sizes > 1
        self._multi = torch.from_numpy(multi_group[groups])  # (d,): column of a wide group
        self._member = torch.from_numpy(member)  # (d, G)
        fill = np.zeros((n_groups, groups.size), dtype=np.float32)  # group -> its first column
        wide = np.flatnonzero(multi_group)
        fill[wide, first[wide]] = 1.0
        self._fill = torch.from_numpy(fill)  # (G, d)

    @property
    def n_columns(self) -> int:
        """Number of feature columns."""
        return len(self.column_groups)

    def __call__(self, values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Return the element mask (batch, d): which observed columns enter the set."""
        mask = mask.to(torch.bool)
        wide = mask & self._multi
        hot = wide & (values != 0)
        observed = (wide.to(torch.float32) @ self._member) > 0  # (B, G) wide groups seen
        lit = (hot.to(torch.float32) @ self._member) > 0  # ... with a non-zero column
        first = ((observed & ~lit).to(torch.float32) @ self._fill) > 0
        return (mask & ~self._multi) | hot | first
