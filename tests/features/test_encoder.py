from __future__ import annotations

import torch

from fairacq.features import AdversaryNetwork, AgentNetwork, SetEncoder
from fairacq.features.dadi._encoder import reset_parameters


def _encoder(d=7, seed=0):
    enc = SetEncoder(d)
    reset_parameters(enc, torch.Generator().manual_seed(seed))
    return enc


def _batch(B=6, d=7, seed=1):
    g = torch.Generator().manual_seed(seed)
    values = torch.randn(B, d, generator=g)
    values[:, 3:] = (values[:, 3:] > 0).float()  # one-hot-like columns share values
    mask = torch.rand(B, d, generator=g) > 0.4
    mask[0] = False  # an empty set
    mask[1] = True  # a complete set
    return values, mask


def test_shapes_and_empty_set():
    enc = _encoder()
    values, mask = _batch()
    z = enc(values, mask)
    assert z.shape == (6, 32)
    assert torch.all(z[0] == 0)


def test_permutation_invariance():
    enc = _encoder()
    values, mask = _batch()
    m = enc.memory(values)
    base = enc.process(m, mask)
    for seed in range(3):
        perm = torch.randperm(7, generator=torch.Generator().manual_seed(seed))
        torch.testing.assert_close(enc.process(m[:, perm], mask[:, perm]), base)


def test_padding_invariance():
    enc = _encoder()
    values, mask = _batch()
    base = enc(values, mask)
    noisy = torch.where(mask, values, torch.full_like(values, 123.0))
    torch.testing.assert_close(enc(noisy, mask), base)
    # extra padded slots with arbitrary memory change nothing
    m = enc.memory(values)
    padded = torch.cat([m, 50 * torch.ones(6, 4, 32)], dim=1)
    padded_mask = torch.cat([mask, torch.zeros(6, 4, dtype=torch.bool)], dim=1)
    torch.testing.assert_close(enc.process(padded, padded_mask), enc.process(m, mask))


def test_batched_equals_per_item_and_dense():
    enc = _encoder()
    values, mask = _batch()
    batched = enc(values, mask)
    for i in range(values.shape[0]):
        torch.testing.assert_close(enc(values[i : i + 1], mask[i : i + 1])[0], batched[i])
    # the packed, deduplicated memory gives the dense computation's numbers
    torch.testing.assert_close(enc.process(enc.memory(values), mask), batched)


def test_gradients_are_finite_with_empty_sets():
    enc = _encoder()
    values, mask = _batch()
    enc(values, mask).sum().backward()
    assert all(torch.isfinite(p.grad).all() for p in enc.parameters() if p.grad is not None)


def test_seeded_initialisation_is_reproducible():
    a = AgentNetwork(5, 3, generator=torch.Generator().manual_seed(4))
    b = AgentNetwork(5, 3, generator=torch.Generator().manual_seed(4))
    c = AgentNetwork(5, 3, generator=torch.Generator().manual_seed(5))
    for (k, pa), pb, _pc in zip(
        a.state_dict().items(), b.state_dict().values(), c.state_dict().values(), strict=False
    ):
        assert torch.equal(pa, pb), k
    assert any(
        not torch.equal(pa, pc) for pa, pc in zip(a.parameters(), c.parameters(), strict=False)
    )


def test_agent_and_adversary_never_share_an_encoder():
    agent = AgentNetwork(5, 3)
    adversary = AdversaryNetwork(5, n_groups=2)
    assert agent.encoder is not adversary.encoder
    ids = {id(p) for p in agent.parameters()}
    assert not ids & {id(p) for p in adversary.parameters()}
    values, mask = torch.zeros(4, 5), torch.ones(4, 5, dtype=torch.bool)
    logit, q = agent(values, mask)
    assert logit.shape == (4,)
    assert q.shape == (4, 4)
    assert adversary(values, mask).shape == (4,)
    assert AdversaryNetwork(5, n_groups=4)(values, mask).shape == (4, 4)
