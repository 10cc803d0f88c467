"""A Form 313 workbook of many employees, filled from data as a user fills one.

:func:`filled_ertc` writes the ERTC example's inputs but the roster as DATA (CSV, one input
a row) and a payroll export of ``count`` employees (one row per employee and pay period,
two semi-monthly rows a month, as payroll systems export them), then ``nj-incentives
fill ertc-form-313 DATA --hours PAYROLL`` (docs/filling.md). Used by the memo's tests
and its benchmark (the 50-employee memo of issue 20, item 5).

The roster cycles through :data:`PATTERNS`, five employees a cycle: one who leaves at the
end of the base year, one hired at the start of credit year one, one working 90 hours a
month throughout, one hired in credit year one's fourth month who leaves in credit year
two, and one working 160 hours in every month of the three years (the last of a roster
of a multiple of five, so that a tree before the fix of trailing blank rows' flags
computes it too); every seventh employee is
temporary or seasonal and every eleventh an owner's relative (both flags as the export
gives them; the workbook applies the rules).
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path
from typing import Any

from nj_incentives.programs.ertc import rules as ertc
from nj_incentives.programs.ertc.templates import form_313 as ertc_credit
from nj_incentives.workpapers.fill import fill

#: Monthly hours (base year, credit year one, credit year two) of the five employees of a
#: cycle.
PATTERNS: tuple[tuple[list[int], list[int], list[int]], ...] = (
    ([160] * 12, [0] * 12, [0] * 12),
    ([0] * 12, [160] * 12, [160] * 12),
    ([90] * 12, [90] * 12, [90] * 12),
    ([0] * 12, [0] * 3 + [150] * 9, [150] * 4 + [0] * 8),
    ([160] * 12, [160] * 12, [160] * 12),
)


def roster(count: int) -> list[dict[str, Any]]:
    """``count`` employees: names, the two exclusion flags and 36 months of hours."""
    return [
        {
            "name": f"Employee {n:03d} (payroll id {100000 + n})",
            "temporary": n % 7 == 0,
            "excluded": n % 11 == 0,
            "base": PATTERNS[(n - 1) % len(PATTERNS)][0],
            "year1": PATTERNS[(n - 1) % len(PATTERNS)][1],
            "year2": PATTERNS[(n - 1) % len(PATTERNS)][2],
        }
        for n in range(1, count + 1)
    ]


def ertc_csv(path: Path) -> Path:
    """The ERTC example's inputs but the roster, as DATA in CSV: one input a row."""
    example = ertc_credit.EXAMPLE
    periods = list(zip(*example["periods"], strict=True))
    engagement = example["engagement"]
    rows = [
        ["input", "value"],
        ["EngagementClient", engagement["client"]],
        ["EngagementEntityId", engagement["entity_id"]],
        ["EngagementPeriod", engagement["period"]],
        ["EngagementPreparer", engagement["preparer"]],
        ["EngagementDate", engagement["date"].isoformat()],
        ["InQualifiedMunicipality", "Yes"],
        ["ReceivesUEZBenefit", "No"],
        ["PriorCreditPeriod", "No"],
        ["OperationsStart", example["operations_start"].isoformat()],
        ["TaxType", "cbt"],
        ["SCorporation", "No"],
        ["GroupPayroll", "0"],
        ["Fractional", "No"],
        ["PeriodEnds", *(d.isoformat() for d in periods[0])],
        ["GrossReceipts", *map(str, periods[1])],
        ["Liabilities", *map(str, periods[2])],
        ["OtherCredits", *map(str, periods[3])],
    ]
    with path.open("w", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def payroll_csv(path: Path, employees: list[dict[str, Any]], start: dt.date) -> Path:
    """One row per employee and pay period: each month's hours in two semi-monthly rows
    (summed back by fill), months with no hours left out, as payroll exports do."""
    first = ertc.base_year(start).start
    months = [
        f"{first.year + (first.month - 1 + n) // 12:04d}-{(first.month - 1 + n) % 12 + 1:02d}"
        for n in range(36)
    ]
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["Employee ID", "Pay month", "Hours worked", "Temporary", "Owner"])
        for e in employees:
            hours = [*e["base"], *e["year1"], *e["year2"]]
            flags = ["Yes" if e["temporary"] else "", "Yes" if e["excluded"] else ""]
            for month, total in zip(months, hours, strict=True):
                if total:
                    out.writerow([e["name"], f"{month}-15", total // 2, *flags])
                    out.writerow([e["name"], month, total - total // 2, *flags])
    return path


def filled_ertc(root: Path, count: int) -> Path:
    """A Form 313 workbook of ``count`` employees filled from DATA and a payroll export
    in ``root`` (not recalculated: ``calc`` or ``recalculate`` computes it)."""
    root.mkdir(parents=True, exist_ok=True)
    data = ertc_csv(root / "ertc.csv")
    start = ertc_credit.EXAMPLE["operations_start"]
    hours = payroll_csv(root / "payroll.csv", roster(count), start)
    return fill("ertc-form-313", data, root / f"ertc-{count}-employees.xlsx", hours=hours).path
