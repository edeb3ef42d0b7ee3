"""Numbers paper 004 (Zhang & Ramesh, Fair-A3SL) reports in §5, for the relational summaries.

Each table maps ``(row label, metric) -> (mean, std)`` as printed (``mean ± std`` over 5
folds, or over the paper-review samples). Metric keys are those of
:func:`fairacq.relational.evaluate_atoms`.
"""

from __future__ import annotations

__all__ = [
    "PAPER_REVIEW_TABLES_4_5",
    "RELATIONAL_TABLE_COLUMNS",
    "TABLES_8_9",
    "TABLES_12_13",
    "relational_paper_value",
]

_T45 = ("auc_pr_protected", "auc_pr_unprotected", "auc_roc")
_T5 = ("rd", "rr", "rc", "equal_odds_pos", "equal_odds_neg")
_T12 = ("mse_protected", "mse_unprotected", "mse")
_T13 = ("non_parity", "overestimation")

#: Columns of each table, in the paper's order, with the paper's header.
RELATIONAL_TABLE_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "table4": (
        ("auc_pr_protected", "AUC-PR Pro."),
        ("auc_pr_unprotected", "AUC-PR Unpro."),
        ("auc_roc", "AUC-ROC"),
    ),
    "table5": (
        ("rd", "RD"),
        ("rr", "RR"),
        ("rc", "RC"),
        ("equal_odds_pos", "Equal Odds Pos."),
        ("equal_odds_neg", "Equal Odds Neg."),
    ),
    "table12": (
        ("mse_protected", "Err Pro."),
        ("mse_unprotected", "Err Unpro."),
        ("mse", "Error"),
    ),
    "table13": (("non_parity", "Non-Parity"), ("overestimation", "Overestimation")),
}
RELATIONAL_TABLE_COLUMNS["table8"] = RELATIONAL_TABLE_COLUMNS["table4"]
RELATIONAL_TABLE_COLUMNS["table9"] = RELATIONAL_TABLE_COLUMNS["table5"]


def _rows(
    metrics: tuple[str, ...], table: dict[str, tuple[tuple[float, float], ...]]
) -> dict[tuple[str, str], tuple[float, float]]:
    return {
        (row, metric): value
        for row, values in table.items()
        for metric, value in zip(metrics, values, strict=True)
    }


#: Paper 004, Tables 4 (AUC-PR per group, AUC-ROC) and 5 (RD, RR, RC, equalised odds):
#: paper-review network, §5.1.
PAPER_REVIEW_TABLES_4_5: dict[tuple[str, str], tuple[float, float]] = {
    **_rows(
        _T45,
        {
            "Sensitive-PSL": ((0.3490, 0.1946), (0.6112, 0.0566), (0.8354, 0.0421)),
            "Sensitive-A3SL": ((0.3490, 0.1946), (0.6707, 0.0443), (0.8544, 0.0360)),
            "Fair-PSL": ((0.4332, 0.1104), (0.6009, 0.0463), (0.7887, 0.0306)),
            "Fair-A3SL1": ((0.3490, 0.1946), (0.6112, 0.0566), (0.8037, 0.0491)),
            "Fair-A3SL2": ((0.6208, 0.2981), (0.7279, 0.0322), (0.8118, 0.0076)),
            "Fair-A3SL3": ((0.6208, 0.2981), (0.5469, 0.1486), (0.7396, 0.0005)),
        },
    ),
    **_rows(
        _T5,
        {
            "Sensitive-PSL": (
                (0.2766, 0.0768),
                (0.2090, 0.0935),
                (1.4344, 0.1543),
                (0.5227, 0.1799),
                (0.1429, 0.0389),
            ),
            "Sensitive-A3SL": (
                (0.0661, 0.0591),
                (0.8723, 0.1479),
                (1.1094, 0.1202),
                (0.1550, 0.1156),
                (0.0317, 0.0056),
            ),
            "Fair-PSL": (
                (0.0005, 0.0004),
                (0.9980, 0.0019),
                (1.0007, 0.0007),
                (0.1346, 0.0234),
                (0.0829, 0.0550),
            ),
            "Fair-A3SL1": (
                (0.0002, 3.7e-5),
                (1.0007, 0.0002),
                (0.9996, 4.9e-5),
                (0.1968, 0.1899),
                (0.1286, 0.0548),
            ),
            "Fair-A3SL2": (
                (0.0059, 0.0005),
                (1.0009, 0.0115),
                (0.9989, 0.0122),
                (0.0096, 0.0066),
                (0.0093, 0.0054),
            ),
            "Fair-A3SL3": (
                (7.9e-5, 1.8e-5),
                (0.9999, 4.9e-5),
                (1.1651, 0.3413),
                (0.0001, 1.2e-5),
                (6.6e-5, 3.2e-5),
            ),
        },
    ),
}

#: Paper 004, Tables 8 and 9: COMPAS, 5-fold cross-validation, §5.2.
TABLES_8_9: dict[tuple[str, str], tuple[float, float]] = {
    **_rows(
        _T45,
        {
            "COMPAS Scores": ((0.6168, 0.0177), (0.5118, 0.0173), (0.6530, 0.0158)),
            "Line-FERM": ((0.6281, 0.0077), (0.5103, 0.0167), (0.6482, 0.0145)),
            "Calibrated Equalized Odds": ((0.7030, 0.0371), (0.3882, 0.0096), (0.6553, 0.0207)),
            "Prejudice Remover": ((0.6801, 0.0274), (0.5494, 0.0259), (0.6859, 0.0040)),
            "Optimized Preprocessing": ((0.7039, 0.0191), (0.5903, 0.0399), (0.7131, 0.0123)),
            "Adversarial Debiasing": ((0.6654, 0.0334), (0.5174, 0.0356), (0.6545, 0.0241)),
            "Fair-A3SL": ((0.7262, 0.0165), (0.6080, 0.0229), (0.7103, 0.0109)),
        },
    ),
    **_rows(
        _T5,
        {
            "COMPAS Scores": (
                (0.2632, 0.0228),
                (1.8170, 0.1165),
                (0.6106, 0.0232),
                (0.2261, 0.0284),
                (0.2285, 0.0187),
            ),
            "Line-FERM": (
                (0.1450, 0.0647),
                (1.5485, 0.2704),
                (0.7936, 0.0961),
                (0.1147, 0.0774),
                (0.1063, 0.0609),
            ),
            "Calibrated Equalized Odds": (
                (0.1350, 0.0145),
                (1.3480, 0.0515),
                (0.7986, 0.0322),
                (0.1946, 0.0180),
                (0.0698, 0.0160),
            ),
            "Prejudice Remover": (
                (0.0541, 0.0089),
                (1.1438, 0.0306),
                (0.9125, 0.0124),
                (0.0772, 0.0194),
                (0.0583, 0.0118),
            ),
            "Optimized Preprocessing": (
                (0.0517, 0.0102),
                (1.1218, 0.0259),
                (0.9099, 0.0168),
                (0.0325, 0.0178),
                (0.0361, 0.0088),
            ),
            "Adversarial Debiasing": (
                (0.0511, 0.0096),
                (1.1176, 0.0243),
                (0.9094, 0.0161),
                (0.0539, 0.0089),
                (0.0307, 0.0089),
            ),
            "Fair-A3SL": (
                (0.0035, 0.0003),
                (1.0047, 0.0006),
                (0.9851, 0.0030),
                (0.0039, 0.0051),
                (0.0160, 0.0105),
            ),
        },
    ),
}

#: Paper 004, Tables 12 (per-group and overall MSE) and 13 (non-parity, overestimation):
#: MovieLens 100K, 5 folds, §5.3.
TABLES_12_13: dict[tuple[str, str], tuple[float, float]] = {
    **_rows(
        _T12,
        {
            "HyPER": ((0.04530, 0.00212), (0.03887, 7.4e-5), (0.04043, 0.00046)),
            "MF": ((0.03909, 0.00233), (0.03258, 0.00014), (0.03415, 0.00067)),
            "Fair-HyPER": ((0.03947, 0.00222), (0.03297, 0.00015), (0.03455, 0.00065)),
            "Fair-MF": ((0.03942, 0.00215), (0.03249, 0.00015), (0.03415, 0.00063)),
            "Fair-A3SL": ((0.03779, 0.00203), (0.03189, 0.00025), (0.03331, 0.00068)),
        },
    ),
    **_rows(
        _T13,
        {
            "HyPER": ((0.00424, 0.00033), (0.0349, 0.00338)),
            "MF": ((0.00473, 0.0005), (0.06294, 0.00475)),
            "Fair-HyPER": ((0.00465, 0.00037), (0.05346, 0.00380)),
            "Fair-MF": ((0.00076, 0.00055), (0.06101, 0.00402)),
            "Fair-A3SL": ((9.2e-5, 5.9e-5), (0.05914, 0.00307)),
        },
    ),
}


def relational_paper_value(
    table: dict[tuple[str, str], tuple[float, float]], row: str | None, metric: str
) -> tuple[float | None, float | None]:
    """Return the paper's ``(mean, std)`` for ``(row, metric)``, or ``(None, None)``.

    Examples
    --------
    >>> relational_paper_value(TABLES_8_9, "COMPAS Scores", "rd")
    (0.2632, 0.0228)
    >>> relational_paper_value(TABLES_8_9, None, "rd")
    (None, None)
    """
    if row is None or (row, metric) not in table:
        return None, None
    mean, std = table[row, metric]
    return mean, std
