"""DADI's networks (Bakker et al., Fig. 1 and Appendix B).

:class:`AgentNetwork` is Fig. 1(a): one set encoder ``f_theta`` feeding both the label
classifier ``g_psi`` (one logit) and the Q-network ``pi_phi`` (one value per feature-group
action plus STOP). :class:`AdversaryNetwork` is Fig. 1(b): its own encoder ``f_chi`` and a
classifier ``g_omega`` of the sensitive attribute. The adversary never shares the agent's
encoder (§3: sharing would let the encoder mask unfair features instead of the agent
avoiding them). Every head has two hidden layers of 64 ReLU units (Appendix B).
"""

from __future__ import annotations

import torch
from torch import nn

from fairacq.features.dadi._elements import HotElements
from fairacq.features.dadi._encoder import SetEncoder, reset_parameters

__all__ = ["AdversaryNetwork", "AgentNetwork", "logits_to_group_proba", "mlp_head"]


def mlp_head(in_features: int, out_features: int, hidden: int = 64) -> nn.Sequential:
    """Return a two-hidden-layer ReLU network ``in -> hidden -> hidden -> out``."""
    return nn.Sequential(
        nn.Linear(in_features, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, out_features),
    )


class AgentNetwork(nn.Module):
    """The shared encoder with the label classifier head and the Q head (Fig. 1a).

    Parameters
    ----------
    n_features : int
        Number of feature columns.
    n_actions : int
        Number of feature-group actions; the Q head has ``n_actions + 1`` outputs (STOP last).
    generator : torch.Generator or None, default=None
        Draws the initial weights (PyTorch's default ranges); ``None`` keeps torch's own
        initialisation.
    elements : HotElements or None, default=None
        Passed to the :class:`SetEncoder` (``None``: every observed column is an element).

    Examples
    --------
    >>> net = AgentNetwork(4, 2, generator=torch.Generator().manual_seed(0))
    >>> logit, q = net(torch.zeros(3, 4), torch.ones(3, 4, dtype=torch.bool))
    >>> tuple(logit.shape), tuple(q.shape)
    ((3,), (3, 3))
    """

    def __init__(
        self,
        n_features: int,
        n_actions: int,
        *,
        generator: torch.Generator | None = None,
        elements: HotElements | None = None,
    ) -> None:
        super().__init__()
        self.encoder = SetEncoder(n_features, elements=elements)
        self.classifier = mlp_head(self.encoder.out_features, 1)
        self.q_head = mlp_head(self.encoder.out_features, n_actions + 1)
        if generator is not None:
            reset_parameters(self, generator)

    def forward(
        self, values: torch.Tensor, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return the label logit (batch,) and the Q-values (batch, n_actions + 1)."""
        z = self.encoder(values, mask)
        return self.classifier(z).squeeze(-1), self.q_head(z)

    def logit(self, values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Return the label classifier's logit of P(y=1), shape (batch,)."""
        out: torch.Tensor = self.classifier(self.encoder(values, mask)).squeeze(-1)
        return out

    def loss(self, logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Return the per-row binary cross-entropy of the labels ``y``."""
        return nn.functional.binary_cross_entropy_with_logits(
            logits, y.to(logits.dtype), reduction="none"
        )


class AdversaryNetwork(nn.Module):
    """The adversary: its own set encoder and a classifier of the sensitive attribute (Fig. 1b).

    Parameters
    ----------
    n_features : int
        Number of feature columns.
    n_groups : int, default=2
        Number of sensitive groups. Two groups give one logit of P(b=1) (the paper's case);
        more give one logit per group (softmax).
    generator : torch.Generator or None, default=None
        Draws the initial weights.
    elements : HotElements or None, default=None
        Passed to the adversary's own :class:`SetEncoder`.

    Examples
    --------
    >>> adv = AdversaryNetwork(4, n_groups=3, generator=torch.Generator().manual_seed(0))
    >>> p = adv.group_proba(torch.zeros(2, 4), torch.ones(2, 4, dtype=torch.bool))
    >>> tuple(p.shape), bool(torch.allclose(p.sum(1), torch.ones(2)))
    ((2, 3), True)
    """

    def __init__(
        self,
        n_features: int,
        *,
        n_groups: int = 2,
        generator: torch.Generator | None = None,
        elements: HotElements | None = None,
    ) -> None:
        super().__init__()
        self.n_groups = int(n_groups)
        self.encoder = SetEncoder(n_features, elements=elements)
        self.classifier = mlp_head(self.encoder.out_features, 1 if n_groups == 2 else n_groups)
        if generator is not None:
            reset_parameters(self, generator)

    def forward(self, values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Return logits: shape (batch,) for two groups, (batch, n_groups) otherwise."""
        out: torch.Tensor = self.classifier(self.encoder(values, mask))
        return out.squeeze(-1) if self.n_groups == 2 else out

    def loss(self, logits: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
        """Return the per-row cross-entropy of the group codes ``s`` (BCE for two groups)."""
        if self.n_groups == 2:
            return nn.functional.binary_cross_entropy_with_logits(
                logits, s.to(logits.dtype), reduction="none"
            )
        return nn.functional.cross_entropy(logits, s.long(), reduction="none")

    def group_proba(self, values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Return the probability of every group, shape (batch, n_groups)."""
        return logits_to_group_proba(self(values, mask), self.n_groups)


def logits_to_group_proba(logits: torch.Tensor, n_groups: int) -> torch.Tensor:
    """Turn adversary logits into group probabilities of shape (batch, n_groups)."""
    if n_groups == 2:
        p1 = torch.sigmoid(logits)
        return torch.stack([1.0 - p1, p1], dim=1)
    return torch.softmax(logits, dim=1)
