"""The Economic Recovery Tax Credit's dated figures: N.J.S.A. 52:27BBB-55 (P.L.2002, c.43,
s.56) and NJ Form 313 (model: :mod:`nj_incentives.core.parameters`)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from nj_incentives.core.parameters import (
    Parameter,
    Selector,
    Version,
    declare_act,
    declare_figure,
    declare_source,
    declare_statute,
)

declare_statute(
    "ertc",
    "Economic Recovery Tax Credit",
    "N.J.S.A. 52:27BBB-55",
    not_modelled=(
        "whether the credit is limited to the economic recovery term (uncertain,"
        " shared/legal-notes.md section 2); S-3969/A-5126 (2024-2025; OLS fiscal estimate"
        " 2024-12-26) extends that term by five years, from January 2025 to January 2030"
        " (chapter and approval not found, section 7), so the question matters for credit"
        " years ending after January 2030 (after January 2025 if the extension was not"
        " enacted)",
        "Form 313 Parts IV and V in the 2022 and 2023 editions (the 2013 numbers, to be"
        " confirmed: programs/forms.py)",
    ),
)
BASE_ERTC = declare_act(
    "ertc",
    "P.L.2003, c.194",
    dt.date(2003, 1, 1),
    source=(
        "shared/statutes/NJSA-52-27BBB-55-economic-recovery-credit.txt (P.L.2002, c.43, s.56,"
        " as amended through P.L.2003, c.194)"
    ),
    note=(
        "the text in shared/statutes; the approval date of P.L.2003, c.194 is not in the"
        " notes: modelled from January 1, 2003"
    ),
)
#: An instruction, not an act (not a version of the statute): the source of a switch's value.
FORM_313_2013 = declare_source(
    "ertc",
    "NJ Form 313 instructions (2013)",
    dt.date(2013, 1, 1),
    source="NJ Form 313 instructions (2013), shared/legal-notes.md section 2",
    note="the five-year carryforward offered as a switch, not the default",
)
_E = "N.J.S.A. 52:27BBB-55"

CREDIT_YEAR_ONE_AMOUNT: Parameter[Decimal] = declare_figure(
    "ertc.credit_year_one_amount",
    "ertc",
    "Credit per new full-time position, credit year one",
    f"{_E}a.",
    Selector.CREDIT_YEAR,
    "money",
    Version(Decimal(2500), BASE_ERTC),
    quote="$2,500 for each new full-time position at that location in credit year one",
)
CREDIT_YEAR_TWO_AMOUNT: Parameter[Decimal] = declare_figure(
    "ertc.credit_year_two_amount",
    "ertc",
    "Credit per new full-time position, credit year two",
    f"{_E}a.",
    Selector.CREDIT_YEAR,
    "money",
    Version(Decimal(1250), BASE_ERTC),
    quote="$1,250 for each new full-time position at that location in credit year two",
)
LIABILITY_SHARE_LIMIT: Parameter[Decimal] = declare_figure(
    "ertc.liability_share_limit",
    "ertc",
    "Credits limit, share of the tax liability",
    f"{_E}b.(3)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.5"), BASE_ERTC),
    quote="shall not exceed 50% of the tax liability otherwise due",
)
CREDIT_PERIOD_MONTHS: Parameter[int] = declare_figure(
    "ertc.credit_period_months",
    "ertc",
    "Credit period per location (months)",
    f"{_E}d.",
    Selector.CREDIT_YEAR,
    "count",
    Version(24, BASE_ERTC),
    quote="a single 24-month continuous period",
)
CREDIT_YEAR_MONTHS: Parameter[int] = declare_figure(
    "ertc.credit_year_months",
    "ertc",
    "Months in a credit year",
    f"{_E}e.",
    Selector.CREDIT_YEAR,
    "count",
    Version(12, BASE_ERTC),
    quote="the first twelve calendar months",
)
FULL_TIME_HOURS_PER_MONTH: Parameter[int] = declare_figure(
    "ertc.full_time_hours_per_month",
    "ertc",
    "Hours a month of a full-time position",
    f'{_E}e. "full time position"',
    Selector.MONTH,
    "hours",
    Version(140, BASE_ERTC),
    quote="at least 140 hours per month",
)
PART_TIME_HOURS_PER_WEEK: Parameter[int] = declare_figure(
    "ertc.part_time_hours_per_week",
    "ertc",
    "Hours a week of a part-time position",
    f'{_E}e. "part-time position"',
    Selector.MONTH,
    "hours",
    Version(20, BASE_ERTC),
    quote="at least 20 hours per week",
)
PART_TIME_MINIMUM_MONTHS: Parameter[int] = declare_figure(
    "ertc.part_time_minimum_months",
    "ertc",
    "Months a part-time position lasts at least",
    f'{_E}e. "part-time position"',
    Selector.CREDIT_YEAR,
    "count",
    Version(3, BASE_ERTC),
    quote="for at least three months during the credit year",
)
#: 52 weeks in 12 months: the reading of 20 hours a week as 86 2/3 hours a month.
WEEKS_PER_YEAR: Parameter[int] = declare_figure(
    "ertc.weeks_per_year",
    "ertc",
    "Weeks in a year (20 hours a week as hours a month)",
    'docs/interpretations.md "Part-time hours"',
    Selector.FIXED,
    "count",
    Version(52, BASE_ERTC),
)
SUSTAINED_EFFORT_RATIO_MAXIMUM: Parameter[int] = declare_figure(
    "ertc.sustained_effort_ratio_maximum",
    "ertc",
    "Highest sustained effort ratio",
    f'{_E}e. "sustained effort ratio"',
    Selector.FIXED,
    "count",
    Version(1, BASE_ERTC),
    quote="not to exceed one",
)
FORM_313_CARRYFORWARD_YEARS: Parameter[int] = declare_figure(
    "ertc.form_313_carryforward_years",
    "ertc",
    "Carryforward years of the Form 313 instructions (a switch, not the default)",
    "NJ Form 313 instructions (2013)",
    Selector.FIXED,
    "count",
    Version(5, FORM_313_2013),
)
