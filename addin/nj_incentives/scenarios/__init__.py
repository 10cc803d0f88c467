"""The scenario runner: many what-if scenarios on the calculation core, exactly and fast.

- :func:`run_scenarios`: a pandas DataFrame of scenarios (one per row; columns in
  ``docs/scenarios.md``) in, the results DataFrame out; ``engine="dask"`` runs the same
  kernel over dask.dataframe partitions.
- :func:`scenarios_table`: the same for a worksheet range (header row + rows), for the
  Excel function ``NJ_SCENARIOS(table)``.
- :func:`make_grid` / :func:`monte_carlo`: scenario tables from a base case.
- ``nj-incentives scenarios``: the command line (:mod:`nj_incentives.cli.scenarios`).

Submodules are imported on first use, so ``import nj_incentives.scenarios`` is cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nj_incentives.scenarios.columns import Layout, ScenarioError
    from nj_incentives.scenarios.generate import make_grid, monte_carlo
    from nj_incentives.scenarios.runner import plan_layout, run_scenarios
    from nj_incentives.scenarios.table import scenarios_table

__all__ = [
    "Layout",
    "ScenarioError",
    "make_grid",
    "monte_carlo",
    "plan_layout",
    "run_scenarios",
    "scenarios_table",
]

_WHERE = {
    "Layout": "columns",
    "ScenarioError": "columns",
    "make_grid": "generate",
    "monte_carlo": "generate",
    "plan_layout": "runner",
    "run_scenarios": "runner",
    "scenarios_table": "table",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
