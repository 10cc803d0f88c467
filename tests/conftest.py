"""Test setup.

The Office.js path of xlwings (``xlwings.server``) is bound at import time and is
xlwings PRO code: the noncommercial licence key is set here, for the tests only.
Nothing users run sets or needs these variables.
"""

from __future__ import annotations

import os

os.environ.setdefault("XLWINGS_ON_SERVER", "true")
os.environ.setdefault("XLWINGS_LICENSE_KEY", "noncommercial")
