"""
Relational: rules under a fairness constraint (PSL)
===================================================

A relational model states rules over entities and their links (who submits which paper, who
reviews it) and infers the unknown atoms together. Here: a small synthetic paper-review
network in which reviewers are biased against student authors (Zhang & Ramesh, §5.1). The
same rules are inferred twice, without and with a constraint that the risk difference of
positive summaries between protected and other papers be at most 0.1.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from fairacq.data.synthetic import make_paper_review
from fairacq.relational import PAPER_REVIEW_BASE_RULES, paper_review_data, run_pipeline

network = paper_review_data(make_paper_review(n_papers=60, n_reviewers=20, random_state=0))
print(PAPER_REVIEW_BASE_RULES)

# %%
results = {
    "rules as written": run_pipeline(
        PAPER_REVIEW_BASE_RULES, None, network, predicate="positiveSummary", random_state=0
    ),
    "with rd<=0.1": run_pipeline(
        PAPER_REVIEW_BASE_RULES,
        None,
        network,
        fairness="rd<=0.1",
        predicate="positiveSummary",
        random_state=0,
    ),
}
for name, result in results.items():
    print(name, {k: round(v, 3) for k, v in result.metrics.items()})

# %%
# The risk difference and the AUC of the inferred summaries, without and with the constraint.
fig, ax = plt.subplots(figsize=(6, 3.5))
keys = {"rd": "risk difference", "auc_roc": "AUC-ROC", "equal_odds_pos": "odds gap (y=1)"}
x = np.arange(len(keys))
for i, (name, result) in enumerate(results.items()):
    ax.bar(x + 0.4 * i - 0.2, [result.metrics[k] for k in keys], 0.4, label=name)
ax.set_xticks(x, list(keys.values()))
ax.legend()
fig.tight_layout()
