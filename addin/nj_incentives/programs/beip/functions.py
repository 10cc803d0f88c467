"""BEIP's NJ_* functions: the grant, the combined State grants limit, the conversion to
tax credits and their use and transfer (N.J.S.A. 34:1B-129, 34:1B-134). The remote-work
functions of subsection h. are the shared provision's
(:mod:`nj_incentives.programs.remote_work.functions`). Declarations:
:mod:`nj_incentives.core.declarations`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from nj_incentives.core.cells import (
    Cell,
    CellResult,
    given,
    money,
    serial_to_date,
    verdict,
)
from nj_incentives.core.declarations import (
    Catalog,
    ExplainTopic,
    ResultColumn,
    a_date,
    each,
    law_as_of,
    listed,
    result_table,
    single,
    switch,
)
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.cbt.functions import NUMBERING, YEAR_END_MONTH

__all__ = [
    "BASE_YEARS_COLUMNS",
    "BEIP_LAW",
    "CONVERSION_SCHEDULE_COLUMNS",
    "CONVERSION_YEAR_COLUMNS",
    "FUNCTIONS",
    "GRANT_SCHEDULE_COLUMNS",
    "GRANT_YEAR_COLUMNS",
    "LAW_AS_OF",
    "TOPICS",
]

#: Every NJ_* function of the program, in the order the catalog shows them.
FUNCTIONS = Catalog()
calculation = FUNCTIONS.calculation

#: The law the calculations cite (each entry adds its subsection).
BEIP_LAW = "N.J.S.A. 34:1B-129"

#: Figures of law as the texts below show them (core.parameters: every version).
_CAP = BEIP.AVERAGE_CAP.brief()
_CAP_FROM = BEIP.CAP_AGREEMENTS_FROM.single.isoformat()

GRANT_SCHEDULE_COLUMNS = (
    ResultColumn("Year", "year", "int", "Grant year, 1 to the term"),
    ResultColumn(
        "Withholdings", "withholdings", "money", "Withholdings of the year's new employees"
    ),
    ResultColumn("Partner tax", "partner_tax", "money", "Partners' estimated tax of the year"),
    ResultColumn(
        "Grant before cap",
        "grant_before_cap",
        "money",
        "The year's grant before the cap",
        scenario="grant_before_cap",
    ),
    ResultColumn(
        "Cap room",
        "cap_room",
        "number",
        f"What the {_CAP} average cap still allows in the year (blank: the cap does not apply)",
    ),
    ResultColumn(
        "Grant", "grant", "money", "Grant paid for the year, after the cap", scenario="grant"
    ),
    ResultColumn("Cumulative grant", "cumulative", "money", "Grants paid so far"),
)

#: The fourth column is shown only for a filer whose year does not end in December or
#: who numbers by the calendar year (see ``NJ_BEIP_CONVERSION_SCHEDULE``).
CONVERSION_SCHEDULE_COLUMNS = (
    ResultColumn("Tax year", "tax_year", "int", "Tax year the credit is issued for"),
    ResultColumn("Share", "share", "fraction", "Share of the converted amount"),
    ResultColumn(
        "Installment",
        "amount",
        "money",
        "Tax credit issued for the tax year",
        scenario="installment",
    ),
    ResultColumn(
        "Period end", "period_end", "date", "Last day of the privilege period of the return"
    ),
)


#: The schedules' columns the scenario runner gives once per grant year (``grant_<k>``) or
#: tax year (``installment_<year>``): ``scenario``.
GRANT_YEAR_COLUMNS = tuple(column for column in GRANT_SCHEDULE_COLUMNS if column.scenario)
CONVERSION_YEAR_COLUMNS = tuple(column for column in CONVERSION_SCHEDULE_COLUMNS if column.scenario)

#: A BEIP calculation's ``law_as_of`` (its help names the versions modelled).
LAW_AS_OF = law_as_of("beip")
_BASIS = switch(
    'What the percentage applies to: "withholdings" or "partners" (estimated tax of the '
    "partners of an eligible partnership); any case",
    ("withholdings", "partners"),
)
_SMART_GROWTH = single(
    "TRUE if the grant promotes smart growth (N.J.S.A. 34:1B-129b.); blank = FALSE"
)
_DISCOUNT_RATE = single(
    "Annual rate for discounting to present value, a fraction (5% = 0.05); blank = 0"
)
_YEARS = single(
    'Years to discount over, at most from sale_date to credit_period_end; blank (or "") ='
    " that whole period; 0 = no discounting (the 75% floor)"
)
_MAX_DISCOUNT_RATE = single(
    "Highest yearly discount rate accepted as a discount to present value; blank = 0.2"
)
_ACCRUAL_YEAR = single("Calendar year the approved grant accrued but was not paid, 2008 to 2025")
_APPROVAL_DATE = a_date(
    "Date the Authority approved the amount (Excel date); matters for 2008-2013 only; blank = "
    f"approved by {BEIP.STATE_FISCAL_YEAR_2017_START.text()}"
)
_CREDIT = single("BEIP tax credit issued for the tax period, dollars")
_TAX_LIABILITY = single("Tax otherwise due for the period, dollars")
_MINIMUM_TAX_FLOOR = single(
    "Statutory minimum the credit may not take the tax below (the alternative reading);"
    " blank = 0 (the credit may take the tax to 0)"
)


calculation(
    "NJ_BEIP_PCT_LIMITS",
    cite=f"{BEIP_LAW}a., b.",
    description=(
        "Lowest and highest BEIP grant percentage for a basis, as a 1x2 row of fractions: "
        "withholdings 10%-50%, partners' tax 10%-30%; 80% / 50% with smart growth (N.J.S.A. "
        "34:1B-129a., b.)."
    ),
    example=("withholdings", True),
    optional=("smart_growth",),
    basis=_BASIS,
    smart_growth=_SMART_GROWTH,
)


calculation(
    "NJ_BEIP_GRANT",
    cite=f"{BEIP_LAW}a., b.",
    description=(
        "Annual BEIP grant before the cap: withholdings x pct + partners' estimated tax x "
        "partner_pct, each part rounded down to the cent (N.J.S.A. 34:1B-129a., b.)."
    ),
    example=(1250000, 0.2),
    optional=("partner_tax", "partner_pct", "smart_growth"),
    withholdings=single("Withholdings of the business's new employees for the year, in dollars"),
    pct=single("Grant percentage of withholdings, a fraction (20% = 0.2); 0 if not used"),
    partner_tax=single(
        "Estimated tax of the partners of an eligible partnership, dollars; blank = 0"
    ),
    partner_pct=single("Grant percentage of the partners' estimated tax, a fraction; blank = 0"),
    smart_growth=_SMART_GROWTH,
)


BASE_YEARS_COLUMNS = (
    ResultColumn("Base year", "year", "int", "A complete calendar year"),
    ResultColumn("First day", "start", "date", "January 1 of the base year"),
    ResultColumn("Last day", "end", "date", "December 31 of the base year"),
)


calculation(
    "NJ_BEIP_BASE_YEARS",
    cite="N.J.S.A. 34:1B-125",
    description=(
        "The base years of a BEIP agreement: the first two complete calendar years following"
        " its effective date (2010-01-01: 2011 and 2012), "
        f"{listed(BASE_YEARS_COLUMNS)} (N.J.S.A. 34:1B-125)."
    ),
    columns=BASE_YEARS_COLUMNS,
    example=(dt.date(2010, 1, 1),),
    effective_date=a_date("Effective date of the grant agreement (Excel date)"),
)


calculation(
    "NJ_BEIP_CAP_APPLIES",
    cite=f"{BEIP_LAW}a.",
    description=(
        f'Whether the {_CAP} average cap per new employee binds the agreement: "Yes" for an '
        f'agreement entered into on or after {_CAP_FROM}, else "No" (N.J.S.A. 34:1B-129a.; '
        "N.J.A.C. 19:31I-1.4(a))."
    ),
    example=(dt.date(2010, 1, 1),),
    optional=("law_as_of",),
    agreement_date=a_date("Date the grant agreement was entered into (Excel date)"),
    law_as_of=LAW_AS_OF,
)


calculation(
    "NJ_BEIP_GRANT_SCHEDULE",
    cite=f"{BEIP_LAW}a.-c.; N.J.A.C. 19:31I-1.4(a)",
    description=(
        f"BEIP grant year by year over the term, after the {_CAP} average cap: "
        f"{listed(GRANT_SCHEDULE_COLUMNS)} (N.J.S.A. 34:1B-129a.-c.; N.J.A.C. 19:31I-1.4(a))."
    ),
    columns=GRANT_SCHEDULE_COLUMNS,
    example=([600000, 600000, 600000], [10, 12, 2], 0.5, dt.date(2010, 1, 1)),
    optional=("smart_growth", "partner_tax", "partner_pct", "cap_method", "law_as_of"),
    withholdings=each("Withholdings per grant year, dollars: one cell per year (the term)"),
    new_employees=each("New employees certified per grant year: one cell per year"),
    pct=single("Grant percentage of withholdings, a fraction (50% = 0.5); 0 if not used"),
    agreement_date=a_date("Date the grant agreement was entered into (Excel date)"),
    smart_growth=_SMART_GROWTH,
    partner_tax=each("Partners' estimated tax per grant year, dollars; blank = 0 each year"),
    partner_pct=single("Grant percentage of the partners' estimated tax, a fraction; blank = 0"),
    cap_method=switch(
        f'How the {_CAP} average cap applies: "per_year" (N.J.A.C. 19:31I-1.4(a) example),'
        ' "whole_term" or "proportional"; blank = "per_year"',
        ("per_year", "whole_term", "proportional"),  # rules.CAP_METHODS (a test checks)
    ),
    law_as_of=LAW_AS_OF,
)


calculation(
    "NJ_BEIP_LIMIT_BASE",
    cite="N.J.S.A. 34:1B-134(b)",
    description=(
        "What the combined State grants limit is a share of: the withholdings, or the "
        'partners\' estimated tax when basis is "partners"; the other may be blank '
        "(N.J.S.A. 34:1B-134(b))."
    ),
    example=("withholdings", 600000),
    optional=("withholdings", "partner_tax"),
    basis=_BASIS,
    withholdings=single("Withholdings of the year's new employees, dollars"),
    partner_tax=single("Partners' estimated tax of the year, dollars"),
)


calculation(
    "NJ_BEIP_COMBINED_LIMIT",
    cite="N.J.S.A. 34:1B-134(b), (c)",
    description=(
        "Largest BEIP grant the combined State grants limit allows without the Treasurer's "
        "approval: 50% of withholdings (30% of partners' tax; 80% / 50% with smart growth) less "
        "other grants (N.J.S.A. 34:1B-134(b), (c))."
    ),
    example=(1000000, 150000, "withholdings"),
    optional=("smart_growth",),
    base_amount=single(
        "Withholdings (or partners' estimated tax) the limit is a share of, dollars"
    ),
    other_grants=single("All other State grants, dollars (Office of Customized Training excluded)"),
    basis=_BASIS,
    smart_growth=_SMART_GROWTH,
)


calculation(
    "NJ_BEIP_GRANT_OVER_LIMIT",
    cite="N.J.S.A. 34:1B-134(b)",
    description=(
        "A grant split at the combined State grants limit, as a 1x2 row: over it (needs the "
        "State Treasurer's approval), max(0, grant - combined_limit), and within it "
        "(N.J.S.A. 34:1B-134(b))."
    ),
    example=(300000, 250000),
    grant=single("The year's BEIP grant, dollars"),
    combined_limit=single(
        "Largest BEIP grant the combined limit allows, dollars (NJ_BEIP_COMBINED_LIMIT)"
    ),
)


calculation(
    "NJ_BEIP_CONVERSION_SCHEDULE",
    cite=f"{BEIP_LAW}e.(1)-(13)",
    description=(
        "Tax credits a grant accrued but not paid converts to: "
        f"{listed(CONVERSION_SCHEDULE_COLUMNS)} (the return it goes on); each rounded down to"
        " the cent, the last taking the remainder (N.J.S.A. 34:1B-129e.(1)-(13))."
    ),
    columns=CONVERSION_SCHEDULE_COLUMNS,
    example=(2016, 100000),
    optional=(
        "approval_date",
        "grant_approval_date",
        "direction_date",
        "year_end_month",
        "numbering",
        "direction_deadline",
    ),
    accrual_year=_ACCRUAL_YEAR,
    amount=single("Approved grant amount converted to tax credits, dollars"),
    approval_date=_APPROVAL_DATE,
    grant_approval_date=a_date(
        "Date the business was approved for the grant, before"
        f" {BEIP.ENACTMENT_P_L_2015_C_194.single}; blank = not checked"
    ),
    direction_date=a_date(
        f"Date the business directed the conversion; {BEIP.ENACTMENT_P_L_2015_C_194.single} to"
        f" {BEIP.DIRECTION_DEADLINE_PUBLISHED.single}; blank = not checked"
    ),
    year_end_month=YEAR_END_MONTH,
    numbering=NUMBERING,
    direction_deadline=switch(
        f'"published" (through {BEIP.DIRECTION_DEADLINE_PUBLISHED.single}, the Authority\'s'
        ' deadline) or "strict" (through 2016-07-09, day 180); blank = "published"',
        ("published", "strict"),
    ),
)


calculation(
    "NJ_BEIP_CONVERSION_INSTALLMENT",
    cite=f"{BEIP_LAW}e.(1)-(13)",
    description=(
        "Tax credit issued for one tax year, or for the return of the privilege period ending on "
        "the date given, from a converted grant; 0 if none (N.J.S.A. 34:1B-129e.(1)-(13))."
    ),
    example=(2012, 1250000, 2018),
    optional=("approval_date", "numbering"),
    accrual_year=_ACCRUAL_YEAR,
    amount=single("Approved grant amount converted to tax credits, dollars"),
    tax_year=single(
        "Tax year whose installment is wanted (e.g. 2018), or the last day of the privilege"
        " period of the return (an Excel date)"
    ),
    approval_date=_APPROVAL_DATE,
    numbering=NUMBERING,
)


calculation(
    "NJ_BEIP_CREDIT_APPLIED",
    cite=f"{BEIP_LAW}f.",
    description=(
        "BEIP credit applied against the tax, before all other credits and payments: min(credit, "
        "tax_liability - minimum_tax) (N.J.S.A. 34:1B-129f.)."
    ),
    example=(300000, 200000),
    optional=("minimum_tax",),
    credit=_CREDIT,
    tax_liability=_TAX_LIABILITY,
    minimum_tax=_MINIMUM_TAX_FLOOR,
)


calculation(
    "NJ_BEIP_CREDIT_REFUND",
    cite=f"{BEIP_LAW}f.",
    description=(
        "Excess of the BEIP credit over the tax, refunded as an overpayment (N.J.S.A. 34:1B-129f.)."
    ),
    example=(300000, 200000),
    optional=("minimum_tax",),
    credit=_CREDIT,
    tax_liability=_TAX_LIABILITY,
    minimum_tax=_MINIMUM_TAX_FLOOR,
)


calculation(
    "NJ_BEIP_TRANSFER_MIN_PRICE",
    cite=f"{BEIP_LAW}g.(3)",
    description=(
        "Lowest lawful consideration for a transfer certificate: 75% of the amount, then "
        "discounted to present value from the sale to the credit's tax period end, / (1 + "
        "discount_rate) ^ years, rounded down to the cent (N.J.S.A. 34:1B-129g.(3))."
    ),
    example=(200000, 0.1, None, dt.date(2024, 12, 31), dt.date(2025, 12, 31)),
    optional=("discount_rate", "years", "sale_date", "credit_period_end", "max_discount_rate"),
    transfer_amount=single("Amount of tax credit transferred, dollars"),
    discount_rate=_DISCOUNT_RATE,
    years=_YEARS,
    sale_date=a_date("Date of the sale (Excel date); with credit_period_end it sets the years"),
    credit_period_end=a_date("Last day of the tax period the credit is issued for (Excel date)"),
    max_discount_rate=_MAX_DISCOUNT_RATE,
)


calculation(
    "NJ_BEIP_TRANSFER_CHECK",
    cite=f"{BEIP_LAW}g.(3)",
    description=(
        '"OK" if a proposed sale of a transfer certificate is lawful, or every reason it is not, '
        "with citations: the amount, the price, who may sell and buy (N.J.S.A. 34:1B-129g.(3);"
        " g.(1), (2))."
    ),
    example=(1000000, 50000, 30000),
    optional=(
        "discount_rate",
        "years",
        "sale_date",
        "credit_period_end",
        "seller_is_transferee",
        "max_discount_rate",
        "seller_pays_tax",
        "credit_exceeds_liability",
        "buyer_may_owe_tax",
    ),
    certificate_amount=single("Refundable credit on the transfer certificate, dollars"),
    transfer_amount=single("Amount of credit sold or assigned, dollars"),
    consideration=single("Price paid for it, dollars"),
    discount_rate=_DISCOUNT_RATE,
    years=_YEARS,
    sale_date=a_date("Date of the sale or assignment (Excel date); blank = no discounting"),
    credit_period_end=a_date(
        "Last day of the tax period the credit is issued for, and used in (Excel date)"
    ),
    seller_is_transferee=single(
        "TRUE if the seller itself bought the credit (a transferee may not transfer it);"
        " blank = FALSE"
    ),
    max_discount_rate=_MAX_DISCOUNT_RATE,
    seller_pays_tax=single(
        "TRUE if the seller pays the CBT or an insurance premiums tax (g.(1): one that pays"
        " none may apply); blank = not checked"
    ),
    credit_exceeds_liability=single(
        "TRUE if the seller's credit under e. exceeds its tax liability (g.(2): it may"
        " apply); blank = not checked"
    ),
    buyer_may_owe_tax=single(
        "TRUE if the buyer may have a CBT or insurance premiums tax liability (g.(3): only"
        " such a person may buy); blank = not checked"
    ),
)


# =========================================================================== adapters
# How each function runs: its cells to the core's result (the rules imported on the first
# call, not at import) and that result to cells.


@FUNCTIONS.adapter(show=lambda limits: [[float(limits[0]), float(limits[1])]])
def NJ_BEIP_PCT_LIMITS(basis: Cell, smart_growth: Cell = None) -> tuple[Decimal, Decimal]:
    from nj_incentives.programs.beip import rules as beip

    return beip.pct_limits(basis, **given(smart_growth=smart_growth))


@FUNCTIONS.adapter(show=lambda grant: money(grant.amount))
def NJ_BEIP_GRANT(
    withholdings: Cell,
    pct: Cell,
    partner_tax: Cell = None,
    partner_pct: Cell = None,
    smart_growth: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.annual_grant(
        withholdings,
        pct,
        **given(partner_tax=partner_tax, partner_pct=partner_pct, smart_growth=smart_growth),
    )


def _table(columns: Sequence[ResultColumn], rows: Sequence[Any]) -> list[list[CellResult]]:
    """A result table: the catalog's header row, then one row of cells per row."""
    return result_table(columns, rows)


def _grant_schedule_table(schedule: Any) -> list[list[CellResult]]:
    return _table(GRANT_SCHEDULE_COLUMNS, schedule.rows)


@FUNCTIONS.adapter(show=lambda years: _table(BASE_YEARS_COLUMNS, years.rows))
def NJ_BEIP_BASE_YEARS(effective_date: Cell) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.base_years(effective_date)


@FUNCTIONS.adapter(show=lambda cap: "Yes" if cap.applies else "No")
def NJ_BEIP_CAP_APPLIES(agreement_date: Cell, law_as_of: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.explain_cap_applies(agreement_date, **given(law_as_of=law_as_of))


@FUNCTIONS.adapter(show=_grant_schedule_table)
def NJ_BEIP_GRANT_SCHEDULE(
    withholdings: Cell,
    new_employees: Cell,
    pct: Cell,
    agreement_date: Cell,
    smart_growth: Cell = None,
    partner_tax: Cell = None,
    partner_pct: Cell = None,
    cap_method: Cell = None,
    law_as_of: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.grant_schedule(
        withholdings,
        new_employees,
        pct,
        agreement_date,
        **given(
            smart_growth=smart_growth,
            partner_tax=partner_tax,
            partner_pct=partner_pct,
            cap_method=cap_method,
            law_as_of=law_as_of,
        ),
    )


@FUNCTIONS.adapter(show=lambda base: money(base.amount))
def NJ_BEIP_LIMIT_BASE(basis: Cell, withholdings: Cell = None, partner_tax: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.limit_base(basis, **given(withholdings=withholdings, partner_tax=partner_tax))


@FUNCTIONS.adapter(show=lambda limit: money(limit.amount))
def NJ_BEIP_COMBINED_LIMIT(
    base_amount: Cell, other_grants: Cell, basis: Cell, smart_growth: Cell = None
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.combined_limit(base_amount, other_grants, basis, **given(smart_growth=smart_growth))


@FUNCTIONS.adapter(show=lambda split: [[money(split.over), money(split.within)]])
def NJ_BEIP_GRANT_OVER_LIMIT(grant: Cell, combined_limit: Cell) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.grant_over_limit(grant, combined_limit)


def _conversion_table(schedule: Any) -> list[list[CellResult]]:
    """Tax year, Share, Installment; and Period end (the return) for a filer whose year
    does not end in December or who numbers by the calendar year (a calendar-year filer's
    table keeps its three columns)."""
    calendar_filer = (schedule.year_end_month, schedule.numbering) == (12, "form")
    columns = CONVERSION_SCHEDULE_COLUMNS[:3] if calendar_filer else CONVERSION_SCHEDULE_COLUMNS
    return _table(columns, schedule.rows)


@FUNCTIONS.adapter(show=lambda schedule: _conversion_table(schedule))
def NJ_BEIP_CONVERSION_SCHEDULE(
    accrual_year: Cell,
    amount: Cell,
    approval_date: Cell = None,
    grant_approval_date: Cell = None,
    direction_date: Cell = None,
    year_end_month: Cell = None,
    numbering: Cell = None,
    direction_deadline: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.conversion_schedule(
        accrual_year,
        amount,
        **given(
            approval_date=approval_date,
            year_end_month=year_end_month,
            numbering=numbering,
            grant_approval_date=grant_approval_date,
            direction_date=direction_date,
            direction_deadline=direction_deadline,
        ),
    )


@FUNCTIONS.adapter(show=money)
def NJ_BEIP_CONVERSION_INSTALLMENT(
    accrual_year: Cell,
    amount: Cell,
    tax_year: Cell,
    approval_date: Cell = None,
    numbering: Cell = None,
) -> Decimal:
    from nj_incentives.programs.beip import rules as beip

    period_end = _period_end_or_none(tax_year)
    return beip.conversion_installment(
        accrual_year,
        amount,
        None if period_end is not None else tax_year,
        **given(approval_date=approval_date, period_end=period_end, numbering=numbering),
    )


#: A number above this in a "tax year or period end" cell is an Excel date serial.
_LARGEST_YEAR = 9999


def _period_end_or_none(value: Cell) -> dt.date | None:
    """A "tax year or period end" cell: the date when it holds one (a date, ISO date text,
    or a serial number above 9999), else None (a tax year)."""
    if isinstance(value, dt.date):
        return value.date() if isinstance(value, dt.datetime) else value
    if isinstance(value, str) and len(value.strip()) >= 10 and value.strip()[4] == "-":
        from nj_incentives.core.common import as_date

        return as_date(value, "tax_year", f"{BEIP_LAW}e.")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > _LARGEST_YEAR:
        return serial_to_date(float(value), "tax_year", f"{BEIP_LAW}e.")
    return None


@FUNCTIONS.adapter(show=lambda application: money(application.applied))
def NJ_BEIP_CREDIT_APPLIED(credit: Cell, tax_liability: Cell, minimum_tax: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.apply_credit(credit, tax_liability, **given(minimum_tax=minimum_tax))


@FUNCTIONS.adapter(show=lambda application: money(application.overpayment))
def NJ_BEIP_CREDIT_REFUND(credit: Cell, tax_liability: Cell, minimum_tax: Cell = None) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.apply_credit(credit, tax_liability, **given(minimum_tax=minimum_tax))


@FUNCTIONS.adapter(show=lambda price: money(price.amount))
def NJ_BEIP_TRANSFER_MIN_PRICE(
    transfer_amount: Cell,
    discount_rate: Cell = None,
    years: Cell = None,
    sale_date: Cell = None,
    credit_period_end: Cell = None,
    max_discount_rate: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.transfer_min_price(
        transfer_amount,
        **given(
            discount_rate=discount_rate,
            years=years,
            sale_date=sale_date,
            credit_period_end=credit_period_end,
            max_discount_rate=max_discount_rate,
        ),
    )


@FUNCTIONS.adapter(show=lambda check: verdict(check.ok, check.reasons))
def NJ_BEIP_TRANSFER_CHECK(
    certificate_amount: Cell,
    transfer_amount: Cell,
    consideration: Cell,
    discount_rate: Cell = None,
    years: Cell = None,
    sale_date: Cell = None,
    credit_period_end: Cell = None,
    seller_is_transferee: Cell = None,
    max_discount_rate: Cell = None,
    seller_pays_tax: Cell = None,
    credit_exceeds_liability: Cell = None,
    buyer_may_owe_tax: Cell = None,
) -> Any:
    from nj_incentives.programs.beip import rules as beip

    return beip.transfer_check(
        certificate_amount,
        transfer_amount,
        consideration,
        **given(
            discount_rate=discount_rate,
            years=years,
            sale_date=sale_date,
            credit_period_end=credit_period_end,
            seller_is_transferee=seller_is_transferee,
            max_discount_rate=max_discount_rate,
            seller_pays_tax=seller_pays_tax,
            credit_exceeds_liability=credit_exceeds_liability,
            buyer_may_owe_tax=buyer_may_owe_tax,
        ),
    )


_RULES = "nj_incentives.programs.beip.rules"

#: The program's ``nj-incentives explain`` topics.
TOPICS = (
    ExplainTopic(
        "conversion",
        "NJ_BEIP_CONVERSION_SCHEDULE",
        f"{_RULES}:conversion_schedule",
        positional=("accrual_year", "amount"),
    ),
    ExplainTopic(
        "grant", "NJ_BEIP_GRANT", f"{_RULES}:annual_grant", positional=("withholdings", "pct")
    ),
    ExplainTopic("grant-schedule", "NJ_BEIP_GRANT_SCHEDULE", f"{_RULES}:grant_schedule"),
    ExplainTopic(
        "combined-limit",
        "NJ_BEIP_COMBINED_LIMIT",
        f"{_RULES}:combined_limit",
        positional=("base_amount", "other_grants", "basis"),
    ),
    ExplainTopic(
        "credit",
        "NJ_BEIP_CREDIT_APPLIED",
        f"{_RULES}:apply_credit",
        positional=("credit", "tax_liability"),
    ),
    ExplainTopic(
        "transfer",
        "NJ_BEIP_TRANSFER_CHECK",
        f"{_RULES}:transfer_check",
        positional=("certificate_amount", "transfer_amount", "consideration"),
    ),
)
