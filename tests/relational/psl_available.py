"""Whether the real PSL (pslpython + Java) runs here, and the marker its cross-checks use.

Without PSL the cross-checks skip, naming what is missing, except in CI (``CI`` set): there
they must run, so a machine without Java fails instead of passing silently (``.ci/run``
installs Java when it is missing).
"""

from __future__ import annotations

import os

import pytest

from fairacq.relational import psl_unavailable

MISSING = psl_unavailable()
needs_psl = pytest.mark.skipif(
    MISSING is not None and not os.environ.get("CI"),
    reason=f"PSL unavailable: {MISSING} (in CI this fails instead)",
)
