"""What paper 002 (Bakker et al., DADI) says about its Fig. 2, for the summaries."""

from __future__ import annotations

__all__ = ["PAPER_002_FIG2"]

#: What paper 002 (§4, "Results", Fig. 2) states; it prints no numbers, only these claims.
PAPER_002_FIG2: dict[str, str] = {
    "monotone": (
        "Increasing 1 - gamma increases both AUC and disparity, for both rewards and both "
        "datasets (§4, Figs. 2a, 2b, 2d, 2e)."
    ),
    "knee": (
        "AUC rises steeply from the start while disparity rises steeply only for larger "
        "1 - gamma, so good AUC is reached at little disparity (§4, Figs. 2c, 2f)."
    ),
    "gnl1": (
        "The group-normalised L1 reward generally gives the better trade-off, especially at "
        "small disparity (§4)."
    ),
    "black_square": (
        "The black square is the pretrained classifier with the full feature set; medians "
        "over the 8 folds (Fig. 2 caption)."
    ),
}
