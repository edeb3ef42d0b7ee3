"""The set encoder of DADI (Bakker et al., Appendix A), batched with padding masks.

Each observed feature ``j`` becomes ``u_j = [x_j, I(j)]`` (its value and a one-hot position)
and a shared memory network (two hidden layers of 64 ReLU units, 32 outputs; Appendix B) maps
it to a memory vector ``m_j``. The process block of Vinyals et al. (2015, "Order matters")
reads the memory: ``r_0`` is the mean of the memory vectors, padded with zeros and fed to an
LSTM (32 hidden units) to give the first query ``q_0``; then for ``T = 5`` processing steps
an attention ``a_{i,t} = softmax_i(m_i . q_t)`` (eq. 7) gives ``r_t = sum_i a_{i,t} m_i`` and
``q_{t+1} = LSTM([q_t, r_t])``. The readout fed to the heads is the last reading vector
``r_T``, as Appendix A states. Attention and mean are permutation invariant.

A batch holds every column of every row; unobserved columns are padding, excluded by a mask
from the mean and the attention (their values never matter). An empty set reads as the zero
vector. One forward pass encodes a whole batch of differently observed states. With
``elements`` (:class:`~fairacq.features.dadi._elements.HotElements`) a one-hot group enters the set
as its hot column only, a lossless and much smaller set.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from fairacq.exceptions import InvalidDataError
from fairacq.features.dadi._elements import HotElements

__all__ = ["SetEncoder", "reset_parameters"]


class SetEncoder(nn.Module):
    """Encode sets of observed feature values into one vector each (Bakker et al., Appendix A).

    Parameters
    ----------
    n_features : int
        Number of feature columns ``d`` (the length of the one-hot position).
    hidden : int, default=64
        Width of the memory network's two hidden layers.
    memory_dim : int, default=32
        Size of each memory vector and of the LSTM's hidden state.
    n_steps : int, default=5
        Number of attention (processing) steps ``T``.
    elements : HotElements or None, default=None
        ``None`` makes every observed column an element (Appendix A); a
        :class:`~fairacq.features.dadi._elements.HotElements` keeps one element per observed
        one-hot group (lossless, fewer elements).

    Examples
    --------
    >>> enc = SetEncoder(3)
    >>> z = enc(torch.zeros(2, 3), torch.tensor([[True, False, True], [False, False, False]]))
    >>> tuple(z.shape), bool((z[1] == 0).all())
    ((2, 32), True)
    """

    def __init__(
        self,
        n_features: int,
        *,
        hidden: int = 64,
        memory_dim: int = 32,
        n_steps: int = 5,
        elements: HotElements | None = None,
    ) -> None:
        super().__init__()
        if elements is not None and elements.n_columns != n_features:
            raise InvalidDataError(
                f"SetEncoder: elements describe {elements.n_columns} columns, the encoder "
                f"{n_features}. Build both from the same feature columns."
            )
        self.elements = elements
        self.n_features = int(n_features)
        self.memory_dim = int(memory_dim)
        self.n_steps = int(n_steps)
        # First layer acts on u_j = [x_j, one-hot(j)]: W u_j = x_j W[:, 0] + W[:, 1 + j].
        self.read_in = nn.Linear(1 + self.n_features, hidden)
        self.read_hidden = nn.Linear(hidden, hidden)
        self.read_out = nn.Linear(hidden, memory_dim)
        self.lstm = nn.LSTMCell(2 * memory_dim, memory_dim)

    @property
    def out_features(self) -> int:
        """Size of the readout vector."""
        return self.memory_dim

    def memory(self, values: torch.Tensor) -> torch.Tensor:
        """Return the memory vectors of every column, shape (batch, d, memory_dim)."""
        cols = torch.arange(self.n_features).expand_as(values)
        return self._memory_of(cols, values)

    def _memory_of(self, cols: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        """Memory vectors of elements ``(column, value)`` (any matching shapes), shape (..., k)."""
        w = self.read_in.weight  # (hidden, 1 + d); W [x_j, I(j)] = x_j W[:, 0] + W[:, 1 + j]
        h = values.unsqueeze(-1) * w[:, 0] + w[:, 1:].T[cols] + self.read_in.bias
        h = torch.relu(self.read_hidden(torch.relu(h)))
        out: torch.Tensor = self.read_out(h)
        return out

    def packed_memory(
        self, values: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return the memory of each row's observed elements, packed to the left.

        The memory network runs once per distinct observed ``(column, value)`` pair of the
        batch (a one-hot column has two values), then the vectors are scattered into a
        (batch, L, k) tensor, ``L`` the largest set in the batch, with a padding mask of shape
        (batch, L): the same numbers as :meth:`memory` on the observed entries, at a fraction
        of the cost.
        """
        mask = mask.to(torch.bool)
        counts = mask.sum(dim=1)
        width = int(counts.max()) if counts.numel() else 0
        rows, cols = mask.nonzero(as_tuple=True)
        out = values.new_zeros(values.shape[0], width, self.memory_dim)
        packed_mask = torch.arange(width).unsqueeze(0) < counts.unsqueeze(1)
        if rows.numel() == 0:
            return out, packed_mask
        slot = torch.cumsum(mask, dim=1)[rows, cols] - 1  # position within the row
        vals = values[rows, cols].to(torch.float32)
        # One int64 key per (column, value): the column above the float's 32 bits.
        key = (cols.long() << 32) | (vals.view(torch.int32).long() & 0xFFFFFFFF)
        uniq, inverse = torch.unique(key, return_inverse=True)
        u_cols = uniq >> 32
        u_vals = (uniq & 0xFFFFFFFF).to(torch.int32).view(torch.float32).to(values.dtype)
        mem = self._memory_of(u_cols, u_vals)
        return out.index_put((rows, slot), mem[inverse]), packed_mask

    def forward(self, values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Encode each row's observed set.

        Parameters
        ----------
        values : torch.Tensor of shape (batch, d)
            Feature values; entries where ``mask`` is false are ignored.
        mask : torch.Tensor of bool, shape (batch, d)
            Which columns are observed.

        Returns
        -------
        torch.Tensor of shape (batch, memory_dim)
            The readout ``r_T`` (zero for an empty set).
        """
        if self.elements is not None:
            mask = self.elements(values, mask)
        return self.process(*self.packed_memory(values, mask))

    def process(self, m: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Run the process block over memory vectors ``m`` (batch, n, k) with a padding mask.

        The result does not depend on the order of the ``n`` set elements, nor on the memory
        vectors where ``mask`` is false.
        """
        mask = mask.to(torch.bool)
        maskf = mask.to(m.dtype)
        count = maskf.sum(dim=1, keepdim=True)  # (B, 1)
        nonempty = (count > 0).to(m.dtype)
        r = (m * maskf.unsqueeze(-1)).sum(dim=1) / count.clamp(min=1.0)  # r_0: mean memory
        batch = m.shape[0]
        zeros = m.new_zeros(batch, self.memory_dim)
        h, c = self.lstm(torch.cat([zeros, r], dim=1), (zeros, zeros))  # q_0
        neg = torch.finfo(m.dtype).min
        for step in range(self.n_steps):
            logits = torch.bmm(m, h.unsqueeze(-1)).squeeze(-1).masked_fill(~mask, neg)
            att = torch.softmax(logits, dim=1) * nonempty  # eq. (7); an empty set reads 0
            r = torch.bmm(att.unsqueeze(1), m).squeeze(1)
            if step + 1 < self.n_steps:
                h, c = self.lstm(torch.cat([h, r], dim=1), (h, c))
        return r


def reset_parameters(module: nn.Module, generator: torch.Generator) -> None:
    """Re-draw every parameter of ``module`` from ``generator`` (PyTorch's default ranges).

    Linear layers get ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` for weights and biases, LSTM cells
    ``U(-1/sqrt(hidden), 1/sqrt(hidden))``; so a network's initial weights come from the run's
    seed without touching torch's global random state.
    """
    with torch.no_grad():
        for sub in module.modules():
            if isinstance(sub, nn.Linear):
                bound = 1.0 / math.sqrt(sub.in_features)
                sub.weight.uniform_(-bound, bound, generator=generator)
                if sub.bias is not None:
                    sub.bias.uniform_(-bound, bound, generator=generator)
            elif isinstance(sub, nn.LSTMCell):
                bound = 1.0 / math.sqrt(sub.hidden_size)
                for p in sub.parameters(recurse=False):
                    p.uniform_(-bound, bound, generator=generator)
