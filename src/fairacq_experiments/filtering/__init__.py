"""Paper 003 (Deng et al., balanced filtering via non-disclosive proxies): Figs. 1-4, App. A.2.

:mod:`.proxies` compares the proxies (Figs. 1-2), :mod:`.proportions` shows what the
(alpha, beta)-proxy does to the groups (Figs. 3-4), and :mod:`.intersect` runs the
intersecting-groups experiment (App. A.2).
"""

from fairacq_experiments.filtering import intersect, proportions, proxies
from fairacq_experiments.filtering.proxies import Fig2Config, FilteringConfig, run_filtering

__all__ = ["Fig2Config", "FilteringConfig", "intersect", "proportions", "proxies", "run_filtering"]
