"""Headless recalculation of workbooks that use the NJ_* functions (issue 5).

- :mod:`~nj_incentives.workpapers.recalc.safety`: open a workbook from anyone without executing or
  following anything in it (size and zip-bomb limits, no XML entities, macros ignored,
  external links not followed).
- :mod:`~nj_incentives.workpapers.recalc.engine`: recalculate every formula with the ``formulas``
  engine, the NJ_* names served by :mod:`nj_incentives.functions`.
- :mod:`~nj_incentives.workpapers.recalc.prebuilt`: a filled shipped template recalculated
  from its template's prebuilt form (what ``calc``, sign-off and roll forward run first;
  anything else goes to the engine), with the same results as the engine.
- :mod:`~nj_incentives.workpapers.recalc.results`: the results workbook (values, formats kept),
  CSV with formula-injection neutralised, and the summary table.

Typical use::

    from nj_incentives.workpapers.recalc import recalculate, write_values, summary_table
    result = recalculate("filled.xlsx")
    write_values(result, "filled.results.xlsx")
    print(summary_table([result]))
"""

from __future__ import annotations

from nj_incentives.workpapers.recalc.engine import (
    CellValue,
    ExcelError,
    FunctionError,
    Recalculation,
    default_functions,
    excel_serial,
    recalculate,
    recalculate_vetted,
)
from nj_incentives.workpapers.recalc.results import (
    format_table,
    neutralise_csv_text,
    summary_rows,
    summary_table,
    write_csv,
    write_values,
)
from nj_incentives.workpapers.recalc.safety import (
    DEFAULT_LIMITS,
    BudgetExceeded,
    Limits,
    UnsafeWorkbookError,
    VettedWorkbook,
    vet_workbook,
)

__all__ = [
    "DEFAULT_LIMITS",
    "BudgetExceeded",
    "CellValue",
    "ExcelError",
    "FunctionError",
    "Limits",
    "Recalculation",
    "UnsafeWorkbookError",
    "VettedWorkbook",
    "default_functions",
    "excel_serial",
    "format_table",
    "neutralise_csv_text",
    "recalculate",
    "recalculate_vetted",
    "summary_rows",
    "summary_table",
    "vet_workbook",
    "write_csv",
    "write_values",
]
