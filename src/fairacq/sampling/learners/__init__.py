"""The round learners of the group samplers (Shekhar et al.).

What a sampler retrains after each round of draws: :class:`ExactLogistic` (warm-started
logistic regression) and :class:`IncrementalMLP` with ``make_round_learner`` and the
``RoundLearner`` protocol (``_learners.py``), :class:`RefitLearner` (a clone of any
scikit-learn classifier refitted on every drawn sample, ``_refit.py``), :class:`IncrementalCNN`
for images (``_cnn.py``), and the seeded resets and SGD epochs the torch learners share
(``_torch_training.py``, torch loaded only when a torch learner is built). The learners know
no oracle, sampler or sampling loop; every public name is exported from
:mod:`fairacq.sampling`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
