"""The PSL rule language: tokens, rules as values, the parser and the hand-written models.

``_syntax`` (tokens, numbers, constants, rule files), ``_rules`` (:class:`Rule`,
:class:`ArithmeticRule` and their parts), ``_parser`` (:func:`parse_rules`) and ``_models``
(the Sensitive-PSL, Fair-PSL and HyPER rule sets of Zhang & Ramesh). The language knows nothing of
data, grounding, inference or learning (an import-linter contract). Public names are exported
from :mod:`fairacq.relational`.
"""

__all__: list[str] = []
