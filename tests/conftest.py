"""Test setup.

The Office.js path of xlwings (``xlwings.server``) is bound at import time and is
xlwings PRO code: the noncommercial licence key is set here, for the tests only.
Nothing users run sets or needs these variables.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLWINGS_ON_SERVER", "true")
os.environ.setdefault("XLWINGS_LICENSE_KEY", "noncommercial")

# CI runs the properties derandomized: the same examples every run, so that a red CI is
# reproducible and never a coin toss; locally they explore new examples each run.
from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI", "").lower() == "true":
    settings.load_profile("ci")
