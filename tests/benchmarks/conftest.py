"""The benchmarks run only when asked: ``pytest -m benchmark`` (pyproject's addopts deselect
them otherwise). One guard for every benchmark module: a test marked ``benchmark`` that is
selected some other way (``-m ''``, a node id) is skipped, with the reason, rather than run
for minutes; an unmarked test here (tests/benchmarks/test_scenarios_floor.py) runs in the suite.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Benchmarks reuse the suite's cases (test_fuzz's calls, test_server_load's requests,
# test_any_saver's savers): those modules' folders are importable from here.
TESTS = Path(__file__).resolve().parents[1]
for folder in ("runtimes", "workpapers/recalc"):
    if str(TESTS / folder) not in sys.path:
        sys.path.append(str(TESTS / folder))


@pytest.fixture(autouse=True)
def _only_when_asked(request: pytest.FixtureRequest) -> None:
    asked = "benchmark" in str(request.config.getoption("-m") or "")
    if request.node.get_closest_marker("benchmark") is not None and not asked:
        pytest.skip("benchmark: run with -m benchmark")
