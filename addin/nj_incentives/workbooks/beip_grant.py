"""Template 1: the BEIP grant schedule (N.J.S.A. 34:1B-129a.-c., 34:1B-134; N.J.A.C. 19:31I-1.4).

Inputs: the agreement (date, term, percentages, smart growth, the basis of the combined
limit) and, per grant year, withholdings, partners' estimated tax, certified new
employees and other State grants. Calculations: the statutory percentage limits, the
grant schedule from ``NJ_BEIP_GRANT_SCHEDULE`` (grant before cap, cap room, grant,
cumulative) and, per year, the combined-grants limit of 34:1B-134 (``NJ_BEIP_COMBINED_LIMIT``)
with the excess over it and the grant within it. Outputs: the totals and a chart.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nj_incentives.catalog import GRANT_SCHEDULE_COLUMNS
from nj_incentives.law import beip
from nj_incentives.workbooks.builder import (
    OUTPUTS,
    Column,
    Item,
    Kind,
    LineItem,
    Ref,
    Section,
    Spill,
    TemplateBuilder,
    nth_cell,
)

__all__ = ["EXAMPLE", "MAX_TERM", "TEMPLATE_ID", "build"]

TEMPLATE_ID = "beip-grant-schedule"
#: The longest grant term, N.J.S.A. 34:1B-129c. (one row per possible grant year).
MAX_TERM = beip.MAXIMUM_TERM_YEARS
YEARS = [f"Grant year {n}" for n in range(1, MAX_TERM + 1)]

#: NJ_BEIP_GRANT_SCHEDULE's result columns, as the catalog declares them
SCHEDULE_COLUMNS = [
    Column(column.header, Kind.COUNT, "", width=8)
    if column.unit == "int"
    else Column(column.header, Kind.MONEY, "$")
    for column in GRANT_SCHEDULE_COLUMNS
]

#: The filled example: a 2010 agreement (the $50,000 average cap applies), five years.
EXAMPLE: Mapping[str, Any] = {
    "engagement": {
        "client": "Example Manufacturing LLC (fictitious)",
        "entity_id": "00-0000000 (example)",
        "period": "Grant years 1-5 (2010-2014)",
        "preparer": "A. Preparer",
        "reviewer": "R. Reviewer",
        "date": dt.date(2026, 12, 1),
    },
    "agreement_date": dt.date(2010, 1, 1),
    "term": 5,
    "pct": 0.5,
    "partner_pct": 0,
    "smart_growth": False,
    "limit_basis": "withholdings",
    "withholdings": [600000, 600000, 650000, 700000, 700000],
    "partner_tax": [],
    "new_employees": [10, 12, 14, 15, 15],
    "other_grants": [0, 50000, 0, 0, 100000],
}


#: The agreement's inputs (Inputs, first section).
AGREEMENT: tuple[LineItem, ...] = (
    Section("Grant agreement"),
    Item(
        "Agreement date",
        "AgreementDate",
        Kind.DATE,
        "date",
        key="agreement_date",
        help="Date the grant agreement was entered into (the $50,000 average cap applies to "
        "agreements from 2003-07-01, N.J.S.A. 34:1B-129a.; N.J.A.C. 19:31I-1.4(a)).",
    ),
    Item(
        "Term",
        "Term",
        Kind.COUNT,
        "years",
        key="term",
        minimum=1,
        maximum=MAX_TERM,
        help="Number of grant years in the agreement, 1 to 10 (N.J.S.A. 34:1B-129c.).",
    ),
    Item(
        "Grant percentage of withholdings",
        "GrantPct",
        Kind.PERCENT,
        "%",
        key="pct",
        maximum=float(beip.SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS),
        help="As agreed: 10% to 50% (N.J.S.A. 34:1B-129a.), up to 80% with smart growth "
        "(b.); 0% if the grant is based on partners' tax only.",
    ),
    Item(
        "Grant percentage of partners' estimated tax",
        "PartnerPct",
        Kind.PERCENT,
        "%",
        key="partner_pct",
        default=0,
        maximum=float(beip.SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX),
        prompt="Grant % of partners' tax",
        help="As agreed: 10% to 30%, 50% with smart growth (N.J.S.A. 34:1B-129a., b.); "
        "0% if not used.",
    ),
    Item(
        "Located in a smart growth area",
        "SmartGrowth",
        Kind.YESNO,
        "yes/no",
        key="smart_growth",
        default=False,
        help="Yes if the grant promotes smart growth: raises the maximum percentages "
        "(N.J.S.A. 34:1B-129b.) and the combined-grants limit (34:1B-134(c)).",
    ),
    Item(
        "Basis of the combined-grants limit",
        "LimitBasis",
        Kind.CHOICE,
        "choice",
        key="limit_basis",
        default="withholdings",
        choices=("withholdings", "partners"),
        prompt="Basis of the combined limit",
        help="What the 34:1B-134 limit is a share of: withholdings, or partners' estimated tax.",
    ),
    Item(
        "Reading of the $50,000 average cap",
        "CapMethod",
        Kind.CHOICE,
        "choice",
        key="cap_method",
        default="per_year",
        choices=tuple(beip.CAP_METHODS),
        prompt="Reading of the average cap",
        help='"per_year": the N.J.A.C. 19:31I-1.4(a) example (default); "whole_term": one test '
        'over the term; "proportional": the same, every year reduced alike.',
    ),
)


def build(
    path: str | Path, values: Mapping[str, Any] | None = None, function_namespace: str = ""
) -> Path:
    """Write the template to ``path`` (blank inputs), or a filled workbook with ``values``
    (keys as in :data:`EXAMPLE`)."""
    values = values or {}
    with TemplateBuilder(
        path,
        title="BEIP grant schedule",
        template_id=TEMPLATE_ID,
        function_namespace=function_namespace,
        engagement=values.get("engagement"),
    ) as b:
        b.about(
            "The Business Employment Incentive Program grant year by year: the grant before "
            "the cap (N.J.S.A. 34:1B-129a., b.), the $50,000 average cap per new employee "
            "(N.J.A.C. 19:31I-1.4(a)), and the combined limit on State grants "
            "(N.J.S.A. 34:1B-134(b), (c)). The grant percentage and term are set by the "
            "Authority in the agreement: enter them as agreed.",
            sources=[
                "N.J.S.A. 34:1B-129 (as amended through P.L.2022, c.134)",
                "N.J.S.A. 34:1B-134 (grant limitations)",
                "N.J.A.C. 19:31I-1.4(a) (average of $50,000 per new employee)",
            ],
        )
        _inputs(b, values)
        schedule, limits = _calculations(b)
        _outputs(b, schedule, limits)
        _checks(b, schedule, limits)
    return Path(path)


def _given(values: Mapping[str, object], key: str) -> Sequence[object]:
    found = values.get(key, ())
    return list(found) if isinstance(found, (list, tuple)) else []


def _inputs(b: TemplateBuilder, values: Mapping[str, object]) -> None:
    i = b.inputs
    i.title(
        "Inputs",
        "Type only in the yellow cells. Percentages as percentages (50%), money in dollars.",
    )
    b.lay_out(AGREEMENT, values)
    i.section("Per grant year (one row per year of the term; leave later years blank)")
    other = _given(values, "other_grants")
    i.input_table(
        YEARS,
        [
            Column(
                "Withholdings",
                Kind.MONEY,
                "$",
                name="Withholdings",
                help="Withholdings of the new employees in the grant year, dollars.",
            ),
            Column(
                "Partners' estimated tax",
                Kind.MONEY,
                "$",
                name="PartnerTax",
                help="Partners' estimated tax on the new employees' share; blank if none.",
            ),
            Column(
                "Certified new employees",
                Kind.COUNT,
                "people",
                name="NewEmployees",
                help="New employees certified in the annual report for the year.",
            ),
            Column(
                "Other State grants",
                Kind.MONEY,
                "$",
                name="OtherGrants",
                help="All other State grants for the year (0 if none), N.J.S.A. 34:1B-134(b).",
            ),
        ],
        {
            "Withholdings": _given(values, "withholdings"),
            "Partners' estimated tax": _given(values, "partner_tax"),
            "Certified new employees": _given(values, "new_employees"),
            "Other State grants": other if other else [0] * MAX_TERM,
        },
        label_header="Grant year",
    )


@dataclass(frozen=True)
class _Schedule:
    """Where the grant schedule's parts are."""

    ref: Ref
    year: Ref
    grant: Ref
    before: Ref
    cap_room: Ref
    cumulative: Ref
    total: Ref


@dataclass(frozen=True)
class _Limits:
    """Where the combined-limit table's columns are, by header, and its totals."""

    table: dict[str, Ref]
    within: Ref
    over: Ref


def _calculations(b: TemplateBuilder) -> tuple[_Schedule, _Limits]:
    c = b.calculations
    c.title("Calculations", "Formulas only: every figure comes from the NJ_* functions.")
    c.section("Percentage limits (N.J.S.A. 34:1B-129a., b.)", width=4)
    pct_columns = [Column("Minimum", Kind.PERCENT, "%"), Column("Maximum", Kind.PERCENT, "%")]
    c.array_table(
        f'{b.fn("NJ_BEIP_PCT_LIMITS")}("withholdings",SmartGrowth)',
        pct_columns,
        rows=1,
        header_from_function=False,
        row_labels=["Percentage of withholdings"],
        name="PctLimits",
    )
    c.array_table(
        f'{b.fn("NJ_BEIP_PCT_LIMITS")}("partners",SmartGrowth)',
        pct_columns,
        rows=1,
        header_from_function=False,
        row_labels=["Percentage of partners' tax"],
        name="PartnerPctLimits",
    )
    schedule = c.array_table(
        f"{b.fn('NJ_BEIP_GRANT_SCHEDULE')}(Withholdings,NewEmployees,GrantPct,AgreementDate,"
        "SmartGrowth,PartnerTax,PartnerPct,CapMethod)",
        SCHEDULE_COLUMNS,
        rows=MAX_TERM,
        label="Grant schedule (N.J.S.A. 34:1B-129a.-c.; N.J.A.C. 19:31I-1.4(a))",
        row_labels=YEARS,
        name="Schedule",
    )
    body = schedule.body()
    year, grant = body.column(0), body.column(5)
    inputs = {
        "W": b.names["Withholdings"],
        "P": b.names["PartnerTax"],
        "O": b.names["OtherGrants"],
    }
    c.section("Combined State grants limit (N.J.S.A. 34:1B-134(b), (c))", width=6)
    rows: list[list[str | Spill | None]] = []
    for n in range(MAX_TERM):
        y, g = year.cell(n).a, grant.cell(n).a
        w, p, o = (nth_cell(inputs[k], n) for k in ("W", "P", "O"))
        base, limit = "[[cell:Limit base]]", "[[cell:Combined limit]]"  # this row's
        rows.append(
            [
                f'IF(ISNUMBER({y}),IF(LimitBasis="partners",{p},{w}),"")',
                f'IF(ISNUMBER({y}),{o},"")',
                f"IF(ISNUMBER({y}),{b.fn('NJ_BEIP_COMBINED_LIMIT')}({base},{o},LimitBasis,"
                f'SmartGrowth),"")',
                # over the limit and within it: one row of two
                Spill(
                    f'IF(ISNUMBER({y}),{b.fn("NJ_BEIP_GRANT_OVER_LIMIT")}({g},{limit}),{{"",""}})',
                    2,
                ),
                None,
            ]
        )
    table = c.formula_table(
        [
            Column("Limit base", Kind.MONEY, "$", name="LimitBase"),
            Column("Other State grants", Kind.MONEY, "$"),
            Column("Combined limit", Kind.MONEY, "$", name="CombinedLimit"),
            Column("Grant over the limit", Kind.MONEY, "$", name="GrantOverLimit"),
            Column("Grant within the limit", Kind.MONEY, "$", name="GrantWithinLimit"),
        ],
        rows,
        row_labels=YEARS,
    )
    c.section("Totals", width=3)
    total = c.total("Total grant", grant, name="TotalGrant")
    within = c.total(
        "Total grant within the combined limit",
        table["Grant within the limit"],
        name="TotalGrantWithinLimit",
    )
    over = c.total(
        "Total grant over the combined limit",
        table["Grant over the limit"],
        name="TotalGrantOverLimit",
    )
    return (
        _Schedule(
            ref=schedule,
            year=year,
            grant=grant,
            before=body.column(3),
            cap_room=body.column(4),
            cumulative=body.column(6),
            total=total,
        ),
        _Limits(table=table, within=within, over=over),
    )


def _output(label: str, kind: Kind, unit: str, formula: str) -> Item:
    """A figure on Outputs."""
    return Item(label, None, kind, unit, formula, role="output", sheet=OUTPUTS)


def _outputs(b: TemplateBuilder, schedule: _Schedule, limits: _Limits) -> None:
    o = b.outputs
    o.title("Outputs", "Valid only when Checks!MasterCheck is TRUE.")
    b.lay_out(
        [
            _output("All checks pass", Kind.CHECK, "TRUE/FALSE", "MasterCheck"),
            _output(
                "The $50,000 average cap applies",
                Kind.TEXT,
                "yes/no",
                f'IF(COUNT({schedule.cap_room.a})>0,"Yes","No")',
            ),
            _output("Total grant", Kind.MONEY, "$", "TotalGrant"),
            _output(
                "Total grant within the combined limit",
                Kind.MONEY,
                "$",
                "TotalGrantWithinLimit",
            ),
            _output(
                "Total grant over the combined limit (needs the Treasurer's approval)",
                Kind.MONEY,
                "$",
                "TotalGrantOverLimit",
            ),
            _output(
                "Years over the combined limit",
                Kind.COUNT,
                "years",
                'COUNTIF(GrantOverLimit,">0")',
            ),
        ]
    )
    o.skip()
    o.chart(
        "BEIP grant by year",
        schedule.year,
        [
            ("Grant before cap", schedule.before),
            ("Grant", schedule.grant),
            ("Grant within the combined limit", limits.table["Grant within the limit"]),
        ],
        y_title="$",
        x_title="Grant year",
    )


def _checks(b: TemplateBuilder, schedule: _Schedule, limits: _Limits) -> None:
    year, grant, before = schedule.year, schedule.grant, schedule.before
    table = limits.table
    b.check(
        "Withholdings are given for every year of the term, and only those",
        "COUNT(Withholdings)=Term",
        "N.J.S.A. 34:1B-129c.",
    )
    b.check(
        "Certified new employees are given for every year of the term",
        "COUNT(NewEmployees)=Term",
        "N.J.A.C. 19:31I-1.4(a)",
    )
    b.check("The schedule covers the term", f"COUNT({year.a})=Term")
    b.check_numbers("The schedule holds numbers only", schedule.ref.body())
    b.check(
        "The grant percentage is within the statutory limits (or 0%)",
        "OR(GrantPct=0,AND(GrantPct>=INDEX(PctLimits,1),GrantPct<=INDEX(PctLimits,2)))",
        "N.J.S.A. 34:1B-129a.",
    )
    b.check(
        "The partners' percentage is within the statutory limits (or 0%)",
        "OR(PartnerPct=0,AND(PartnerPct>=INDEX(PartnerPctLimits,1),"
        "PartnerPct<=INDEX(PartnerPctLimits,2)))",
        "N.J.S.A. 34:1B-129b.",
    )
    b.check(
        "No year's grant exceeds its grant before the cap",
        f"SUMPRODUCT(--({grant.a}>{before.a}))=0",
    )
    b.check(
        "No year's grant exceeds its cap room",
        f"SUMPRODUCT(--ISNUMBER({schedule.cap_room.a}),--({grant.a}>{schedule.cap_room.a}))=0",
        "N.J.A.C. 19:31I-1.4(a)",
    )
    b.check_equal(
        "The grants sum to the last cumulative grant",
        schedule.total.a,
        f"MAX({schedule.cumulative.a})",
    )
    for header in (
        "Limit base",
        "Combined limit",
        "Grant over the limit",
        "Grant within the limit",
    ):
        b.check(
            f"The combined-limit table has a number for each year: {header.lower()}",
            f"COUNT({table[header].a})=Term",
            "N.J.S.A. 34:1B-134(b), (c)",
        )
    b.check_equal(
        "Grant within the limit plus grant over it equals the grant",
        f"{limits.within.a}+{limits.over.a}",
        schedule.total.a,
        "N.J.S.A. 34:1B-134(b)",
    )
    b.check(
        "No year's grant within the limit exceeds the combined limit",
        f"SUMPRODUCT(--({table['Grant within the limit'].a}>{table['Combined limit'].a}))=0",
        "N.J.S.A. 34:1B-134(b), (c)",
    )
