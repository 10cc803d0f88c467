"""The benchmarks run only when asked: ``pytest -m benchmark`` (pyproject's addopts deselect
them otherwise). One guard for every benchmark module: a test marked ``benchmark`` that is
selected some other way (``-m ''``, a node id) is skipped, with the reason, rather than run
for minutes; an unmarked test here (tests/benchmarks/test_scenarios_floor.py) runs in the suite.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _only_when_asked(request: pytest.FixtureRequest) -> None:
    asked = "benchmark" in str(request.config.getoption("-m") or "")
    if request.node.get_closest_marker("benchmark") is not None and not asked:
        pytest.skip("benchmark: run with -m benchmark")
