"""The scenario runner's error for a table as a whole, in a module of its own: the Dask
engine's client raises and receives it without importing the columns' declarations
(:mod:`.columns`, which re-exports it, imports every program's rules)."""

from __future__ import annotations

__all__ = ["ScenarioError"]


class ScenarioError(ValueError):
    """A problem with the scenario table as a whole (not with one row): unknown columns,
    an unreadable file, a bad grid or Monte Carlo spec. Row problems never raise: they go
    in the row's ``error`` column."""
