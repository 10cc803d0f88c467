"""The scalar path: one scenario row at a time, straight through the calculation core.

This is the reference the kernel must equal, the source of every row error message
(the core's :class:`~nj_incentives.core.common.InputError` text), and the per-row loop
the benchmark compares with. A row's values are a mapping column -> plain Python value,
blank cells as None (:func:`nj_incentives.scenarios.convert.raw_values`). Each section's
scalar path is its program's (``SECTIONS`` of ``programs/<key>/scenarios.py``); this
module runs a row's present sections in order and collects their messages.

Messages are the core's, with additions that locate the value in the table (the
programs say which: "tax year 2019: ...", "period 2: ...", as the core itself says
"year 3: ..." for a grant year). The runner's own limits
(:mod:`nj_incentives.core.scenario_inputs`) raise an ``InputError`` whose citation is
"scenario runner limit".
"""

from __future__ import annotations

from collections.abc import Mapping

from nj_incentives.core.common import InputError
from nj_incentives.core.scenario_sections import (
    Outputs,
    Values,
    grown_rule,
    next_period_end,
    next_period_end_rule,
)
from nj_incentives.scenarios.columns import RUNNER_LIMIT, SECTIONS, Layout, section_of

__all__ = [
    "RUNNER_LIMIT",
    "grown_rule",
    "next_period_end",
    "next_period_end_rule",
    "run_row",
    "section",
]


# =========================================================================== a row


def section(name: str, values: Values, layout: Layout) -> Outputs | None:
    """One section of one row: its program's scalar path (raises the core's InputError)."""
    return section_of(name).scalar(values, layout)


def run_row(
    values: Values, layout: Layout, present: Mapping[str, bool]
) -> tuple[Outputs, list[str]]:
    """Every present section of one row: (results, error messages in section order)."""
    out: Outputs = {}
    errors: list[str] = []
    for name in SECTIONS:
        if not present.get(name):
            continue
        try:
            result = section(name, values, layout)
        except InputError as error:
            errors.append(str(error))
            continue
        except (ArithmeticError, ValueError, TypeError, OverflowError, KeyError) as error:
            # not an input error the core foresaw: still only this row's error
            first_line = (str(error).strip().splitlines() or [""])[0][:160]
            errors.append(
                f"{name} = (this row): could not be computed ({type(error).__name__}: "
                f"{first_line}); please report it ({RUNNER_LIMIT})"
            )
            continue
        if result is not None:
            out.update(result)
    return out, errors
