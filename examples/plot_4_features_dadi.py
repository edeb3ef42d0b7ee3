"""
Features: which features to ask each person for (DADI, quick)
=============================================================

DADI (Bakker et al.) learns, per person, which features to ask for next and when to stop, so
that a third party's prediction stays accurate while revealing little about the person's
group. Here it trains for a few seconds on part of the bundled COMPAS data: a smoke test,
shorter still than the command line's quick preset (150 + 150 iterations); the full preset
trains for 10,000 + 10,000.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairacq.data import load_dataset
from fairacq.features import DADI

compas = load_dataset("compas")
rng = np.random.default_rng(0)
rows = rng.permutation(len(compas))
train, people = compas.subset(rows[:1500]), compas.subset(rows[1500:1700])

dadi = DADI(
    n_pretrain_iter=60,
    n_train_iter=60,
    epsilon_decay_iter=40,
    batch_size=32,
    n_parallel=8,
    random_state=0,
)
dadi.fit(train)

# %%
# Training is recorded in ``trace_``, one row per iteration, like every strategy's run.
# Serving: each new person is asked for features one at a time until the policy stops.
frame = dadi.trace_.to_frame()
joint = frame[frame["phase"] == "joint"]
features = pd.DataFrame(people.X, columns=people.feature_names)
n_asked = [len(answer.features) for answer in dadi.acquire_many(features)]
print(f"{np.mean(n_asked):.1f} features asked per person on average")

fig, (loss, asked) = plt.subplots(1, 2, figsize=(9, 3.5))
loss.plot(joint["iteration"], joint["adversary_loss"], label="adversary (guesses the group)")
loss.plot(joint["iteration"], joint["train_loss"], label="classifier")
loss.set(xlabel="iteration", ylabel="loss")
loss.legend()
asked.hist(n_asked, bins=np.arange(max(n_asked) + 2) - 0.5)
asked.set(xlabel="features asked for", ylabel="people")
fig.tight_layout()
