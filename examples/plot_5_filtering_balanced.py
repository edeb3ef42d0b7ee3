"""
Filtering: whom to admit so the admitted sample is balanced
===========================================================

When you screen a stream of candidates but may not see their group, a proxy admits each
candidate with a probability learned from the features alone (Deng et al.), so that the
admitted sample is balanced across groups while the proxy says little about any one person's
group. Here: the bundled Bank Marketing data by job, a (alpha, beta)-proxy with disclosure
budget ``alpha = 0.2``, and the :class:`~fairacq.filtering.BalancedFilter` that applies it.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairacq.data import load_dataset, split_filtering
from fairacq.filtering import BalancedFilter, fit_proxy

bank = load_dataset("bank-marketing")
rows = np.random.default_rng(0).permutation(len(bank))[:12000]
split = split_filtering(bank.subset(rows), random_state=0)
print(split.train)

# ``gamma`` is how finely the proxy's tree may split; 0.02 lets it reach a balanced sample
# here, at the price of admitting few candidates.
proxy = fit_proxy(split.train, "alpha-beta", alpha=0.2, gamma=0.02, random_state=0)

# %%
# Screen the held-out candidates: only their features are given to the filter.
candidates = pd.DataFrame(split.test.X, columns=split.test.feature_names)
filt = BalancedFilter(proxy=proxy, random_state=0).fit(candidates)
print(f"admitted {filt.mask_.sum()} of {len(candidates)} candidates")

# %%
# Each group's share among all candidates and among those admitted.
names = list(split.test.group_names)
before = np.bincount(split.test.s, minlength=len(names)) / len(split.test.s)
after = np.bincount(split.test.s[filt.mask_], minlength=len(names)) / max(filt.mask_.sum(), 1)
fig, ax = plt.subplots(figsize=(8, 3.5))
x = np.arange(len(names))
ax.bar(x - 0.2, before, 0.4, label="candidates")
ax.bar(x + 0.2, after, 0.4, label="admitted")
ax.axhline(1 / len(names), color="grey", linestyle=":", label="balanced")
ax.set_xticks(x, names, rotation=45, ha="right")
ax.set_ylabel("share of the group")
ax.legend()
fig.tight_layout()
