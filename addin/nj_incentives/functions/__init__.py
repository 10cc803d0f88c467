"""The NJ_* functions as plain callables with their metadata; nothing here imports xlwings.

- :mod:`~nj_incentives.functions.catalog`: every calculation's name, description,
  citation, arguments, example and result columns;
- :mod:`~nj_incentives.core.cells`: how cells become the core's inputs and results
  become cells;
- :mod:`~nj_incentives.functions.adapters`: each function's two halves (cells to the
  core's result, the result to cells): the registered programs' (declared in their
  folders) and those of the functions of no program;
- :mod:`~nj_incentives.functions.table`: the table of them, :data:`CATALOG` (by Excel
  name, in catalog order), the plain callables :func:`functions` (and :data:`FUNCTIONS`,
  raising on a bad input), and the ``law_as_of`` of a ``calc --law-as-of`` run.

The headless recalculation, the memo, sign-off, ``doctor`` and the reference read this
package; Excel reaches the same table through :mod:`nj_incentives.runtimes` (the module
users name ``nj_incentives.excel`` decorates it for xlwings). Importing the package
registers every adapter, so :data:`CATALOG` is whole whichever submodule is imported.
"""

from __future__ import annotations

from collections.abc import Callable

from nj_incentives.core.cells import CellResult
from nj_incentives.functions import adapters  # noqa: F401  (registers every NJ_* adapter)
from nj_incentives.functions.table import (
    CATALOG,
    ExcelFunction,
    LawAsOfRun,
    functions,
    law_as_of_applied,
    law_as_of_in_force,
)

__all__ = [
    "CATALOG",
    "FUNCTIONS",
    "ExcelFunction",
    "LawAsOfRun",
    "functions",
    "law_as_of_applied",
    "law_as_of_in_force",
]

#: ``functions(errors="raise")``: the plain callables, by Excel name, raising on bad input
#: (the core's ``InputError``; :func:`~nj_incentives.core.cells.error_text` gives the
#: cell text for any exception).
FUNCTIONS: dict[str, Callable[..., CellResult]] = functions(errors="raise")
