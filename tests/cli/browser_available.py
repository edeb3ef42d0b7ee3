"""Whether a headless Chromium runs here, and the marker of the tests that open a report in it.

Without Chromium those tests skip, naming what is missing, except in CI (``CI`` set): there
they must run, so a machine without the browser fails instead of passing silently
(``.ci/run`` installs Chromium when it is missing).
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = next(
    (path for name in ("chromium", "chromium-browser") if (path := shutil.which(name))), None
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"),
    reason="Chromium not installed (apt-get install chromium; in CI this fails instead)",
)
