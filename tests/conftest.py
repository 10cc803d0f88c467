"""Test setup.

The Office.js path of xlwings (``xlwings.server``) is bound at import time and is
xlwings PRO code: the noncommercial licence key is set here, for the tests only.
Nothing users run sets or needs these variables.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLWINGS_ON_SERVER", "true")
os.environ.setdefault("XLWINGS_LICENSE_KEY", "noncommercial")

# No test asserts wall time (docs/performance.md reports the figures instead): Hypothesis's
# per-example deadline and its "too slow" health check are wall-time assertions, which a
# loaded 2-core machine failed (test_catalog_fast_paths at load 9), so both are off for
# every property. CI runs the properties derandomized: the same examples every run, so
# that a red CI is reproducible and never a coin toss; locally they explore new examples.
from hypothesis import HealthCheck, settings

settings.register_profile("project", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", parent=settings.get_profile("project"), derandomize=True, print_blob=True
)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "project")
