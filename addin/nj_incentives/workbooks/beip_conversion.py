"""Template 2: BEIP grants converted to tax credits (N.J.S.A. 34:1B-129e.-h.).

Inputs: the approved amount accrued but not paid in each calendar year 2008-2025, with
its approval date (which moves paragraph (1)'s schedule, e.(1)); the tax liability of
each tax year; a proposed sale of a tax credit transfer certificate (g.(3)); the
remote-work election (h.).

Calculations, each from the NJ_* functions:

- one ``NJ_BEIP_CONVERSION_SCHEDULE`` per accrual year (18 array calls): its
  installments by tax year, each table as long as its paragraph's installments;
- the matrix of installments by tax year (rows, 2017-2030) and accrual year (columns),
  in three blocks of six accrual years (so that it prints one page wide at a readable
  size): each block is ONE array formula, ``SUMIFS`` of the schedules over the tax-year
  column (no function call per cell), and the total credit issued per tax year;
- per tax year, the credit applied against the liability and the refund
  (``NJ_BEIP_CREDIT_APPLIED`` / ``NJ_BEIP_CREDIT_REFUND``, N.J.S.A. 34:1B-129f.);
- the lowest lawful consideration and the check of a proposed sale
  (``NJ_BEIP_TRANSFER_MIN_PRICE`` / ``NJ_BEIP_TRANSFER_CHECK``, g.(3));
- the remote-work payment on the credit of the 2022 tax period and the check of the
  election (``NJ_BEIP_REMOTE_WORK_PAYMENT`` / ``NJ_BEIP_REMOTE_WORK_CHECK``, h.).

Why tax years run down the rows: every per-tax-year figure (installments, total,
liability, credit applied, refund) then sits on one row, as the years of the other two
templates do, and the builder's tables, checks and chart read columns.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nj_incentives.catalog import CONVERSION_SCHEDULE_COLUMNS
from nj_incentives.law import beip, cbt
from nj_incentives.workbooks.builder import (
    CALCULATIONS,
    CENT_TOLERANCE,
    NOT_COMPUTED,
    Column,
    Item,
    Kind,
    LineItem,
    Ref,
    Section,
    SheetWriter,
    Skip,
    Spill,
    TemplateBuilder,
    nth_cell,
)

__all__ = ["ACCRUAL_YEARS", "EXAMPLE", "TAX_YEARS", "TEMPLATE_ID", "build"]

MONEY = Kind.MONEY
TEMPLATE_ID = "beip-credit-conversion"

#: Calendar years whose grants subsection e. converts, N.J.S.A. 34:1B-129e.(1)-(13).
ACCRUAL_YEARS = tuple(range(beip.FIRST_ACCRUAL_YEAR, beip.LAST_ACCRUAL_YEAR + 1))
#: The matrix's tax years: from 2017, the first tax period of e.(1), to 2030, so that an
#: amount of paragraph (1) approved as late as June 30, 2026 (State fiscal year 2026)
#: still has its five installments inside (a check fails if one falls outside).
TAX_YEARS = tuple(range(beip.CONVERSION_PARAGRAPHS[0].first_tax_year, 2031))
#: The tax period whose credit sets the remote-work payment, N.J.S.A. 34:1B-129h.(2).
REMOTE_WORK_TAX_YEAR = 2022

#: NJ_BEIP_CONVERSION_SCHEDULE's result columns, as the catalog declares them (the three a
#: calendar-year filer's table has: the template's filer files by calendar year)
_SHOWN = {
    "int": (Kind.YEAR, "", 10),
    "fraction": (Kind.PERCENT, "%", 10),
    "money": (Kind.MONEY, "$", 16),
}
SCHEDULE_COLUMNS = [
    Column(column.header, kind, unit, width=width)
    for column in CONVERSION_SCHEDULE_COLUMNS[:3]
    for kind, unit, width in [_SHOWN[column.unit]]
]

#: The filled example: seven accrual years with something approved, one approved late.
EXAMPLE: Mapping[str, Any] = {
    "engagement": {
        "client": "Example Manufacturing LLC (fictitious)",
        "entity_id": "00-0000000 (example)",
        "period": "Tax years 2017-2030",
        "preparer": "A. Preparer",
        "reviewer": "R. Reviewer",
        "date": dt.date(2026, 12, 1),
    },
    "amounts": {
        2010: 1_250_000,
        2011: 480_000.55,
        2014: 400_000,
        2016: 300_000,
        2018: 250_000.01,
        2020: 120_000,
        2024: 90_000,
    },
    "approval_dates": {2010: dt.date(2015, 11, 20), 2011: dt.date(2017, 9, 15)},
    "liabilities": {
        2017: 150_000,
        2018: 120_000,
        2019: 400_000,
        2020: 250_000,
        2021: 300_000,
        2022: 200_000,
        2023: 100_000,
        2024: 60_000,
        2025: 80_000,
    },
    "transfer_proposed": True,
    "certificate_amount": 245_000.16,
    "transfer_amount": 200_000,
    "consideration": 145_000,
    "discount_rate": 0.05,
    "sale_date": dt.date(2024, 6, 30),
    "credit_period_end": dt.date(2025, 6, 30),
    "remote_work_election": True,
    "election_date": dt.date(2023, 6, 30),
    "share_at_facility": 0.25,
}


def build(
    path: str | Path, values: Mapping[str, Any] | None = None, function_namespace: str = ""
) -> Path:
    """Write the template to ``path`` (blank inputs), or a filled
    workbook with ``values`` (keys as in :data:`EXAMPLE`)."""
    values = values or {}
    with TemplateBuilder(
        path,
        title="BEIP credit conversion",
        template_id=TEMPLATE_ID,
        function_namespace=function_namespace,
        engagement=values.get("engagement"),
    ) as b:
        b.about(
            "BEIP grants accrued but not paid in 2008-2025 and converted to tax credits: the "
            "installments by accrual year and tax year (N.J.S.A. 34:1B-129e.(1)-(13)), the "
            "credit applied against each year's tax and the excess refunded as an "
            "overpayment (f.), a check of a proposed sale of a tax credit transfer "
            "certificate (g.(3)), and the remote-work election's payment and conditions "
            "(h.). The approved amounts are the Authority's: enter them as approved.",
            sheet_notes=[
                (
                    "Calculations",
                    "one conversion schedule per accrual year, the matrix of installments by "
                    "tax year and accrual year, the credit applied and refunded per tax year, "
                    "the transfer and remote-work results",
                )
            ],
            sources=[
                "N.J.S.A. 34:1B-129e. (conversion, P.L.2015, c.194), f. (application), "
                "g. (transfer certificates), h. (remote-work election, P.L.2022, c.134)",
                "docs/interpretations.md: rounding of installments, late approval (e.(1)), "
                "transfer minimum price, remote-work election",
            ],
        )
        _inputs(b, values)
        calc = _calculations(b)
        _outputs(b, calc)
        _checks(b, calc)
    return Path(path)


# --------------------------------------------------------------------------- inputs


def _by_year(values: Mapping[str, Any], key: str, years: Sequence[int]) -> list[object]:
    found = values.get(key) or {}
    return [found.get(year) for year in years]


#: Inputs: the filer's returns and the dates of approval and direction.
FILER: tuple[LineItem, ...] = (
    Section("The filer's returns (N.J.S.A. 34:1B-129e.; Form CBT-100 numbering)"),
    Item(
        "Month the filer's privilege period ends",
        "FilerYearEndMonth",
        Kind.COUNT,
        "month 1-12",
        key="year_end_month",
        default=12,
        minimum=1,
        maximum=12,
        prompt="Month the period ends",
        help="12 for a calendar-year filer, 6 for a June-30 filer. Tax year N is the return for "
        "the period ending July-December of N or January-June of N+1.",
    ),
    Item(
        "Numbering of tax years",
        "TaxYearNumbering",
        Kind.CHOICE,
        "choice",
        key="numbering",
        default="form",
        choices=cbt.TAX_YEAR_NUMBERINGS,
        help='"form": the Division\'s form year (default); "calendar": the calendar year in '
        "which the period ends (docs/interpretations.md).",
    ),
    Item(
        "Date the business was approved for the grant",
        "GrantApprovalDate",
        Kind.DATE,
        "date",
        key="grant_approval_date",
        prompt="Grant approval date",
        help="Must be before 2015-11-09, the enactment of P.L.2015, c.194 (e.). Blank = not "
        "checked.",
    ),
    Item(
        "Date the business directed the conversion",
        "DirectionDate",
        Kind.DATE,
        "date",
        key="direction_date",
        prompt="Conversion direction date",
        help="Within 180 days of the enactment: 2015-11-09 to 2016-05-07 (e.). Blank = not "
        "checked.",
    ),
)


#: Inputs: the minimum the credit may not take the tax below.
CREDIT_MINIMUM: tuple[LineItem, ...] = (
    Item(
        "Statutory minimum the credit may not take the tax below",
        "CreditMinimumTax",
        Kind.MONEY,
        "$",
        key="credit_minimum_tax",
        default=0,
        prompt="Minimum the tax is held at",
        help="0 (default): the credit may take the tax to 0 (f.). The alternative reading: the "
        "CBT minimum (N.J.S.A. 54:10A-5(e)), the rest refunded.",
    ),
)


#: Inputs: the transfer certificate and the remote-work election.
TRANSFER_AND_REMOTE_WORK: tuple[LineItem, ...] = (
    Skip(),
    Section("Tax credit transfer certificate (N.J.S.A. 34:1B-129g.(3))"),
    Item(
        "A sale of a transfer certificate is proposed",
        "TransferProposed",
        Kind.YESNO,
        "yes/no",
        key="transfer_proposed",
        prompt="Certificate sale proposed?",
        help="Yes to check a proposed sale or assignment below; No if none.",
    ),
    Item(
        "Refundable credit on the certificate",
        "CertificateAmount",
        Kind.MONEY,
        "$",
        key="certificate_amount",
        prompt="Credit on the certificate",
        help="Tax credit issued on the transfer certificate (what remains of it, if part was "
        "already sold).",
    ),
    Item(
        "Amount of credit to be sold",
        "TransferAmount",
        Kind.MONEY,
        "$",
        key="transfer_amount",
        help="At least $100,000, or the whole credit if it is less (g.(3)).",
    ),
    Item(
        "Consideration offered",
        "Consideration",
        Kind.MONEY,
        "$",
        key="consideration",
        help="Price the business would receive for the credit sold.",
    ),
    Item(
        "Discount rate to present value",
        "DiscountRate",
        Kind.PERCENT,
        "% a year",
        key="discount_rate",
        default=0,
        help="Annual rate for discounting the 75% minimum to present value (g.(3)), at most "
        "20%; 0% for none.",
    ),
    Item(
        "Date of the sale",
        "SaleDate",
        Kind.DATE,
        "date",
        key="sale_date",
        help="The discount to present value runs from the sale to the end of the credit's tax "
        "period (g.(3)). Blank (with the next) = no discounting.",
    ),
    Item(
        "Last day of the tax period the credit is issued for",
        "CreditPeriodEnd",
        Kind.DATE,
        "date",
        key="credit_period_end",
        prompt="End of the credit's tax period",
        help="The credit may only be applied in that period (e.): the end of the discounting.",
    ),
    Item(
        "The seller is itself a tax credit transferee",
        "SellerIsTransferee",
        Kind.YESNO,
        "yes/no",
        key="seller_is_transferee",
        default="No",
        prompt="Seller is a transferee?",
        help="A transferee may not transfer its tax credit to any other party (g.(3)).",
    ),
    Skip(),
    Section("Remote-work election (N.J.S.A. 34:1B-129h.)"),
    Item(
        "The business made the remote-work election",
        "RemoteWorkElection",
        Kind.YESNO,
        "yes/no",
        key="remote_work_election",
        prompt="Remote-work election made?",
        help="Yes if the business elected to waive the 60% on-site requirement for "
        "2022-07-01 to 2023-12-31.",
    ),
    Item(
        "Date of the election",
        "ElectionDate",
        Kind.DATE,
        "date",
        key="election_date",
        help="On or after 2021-06-04 (the end of the public health emergency, Executive Order "
        "No. 244) and before 2023-12-31 (h.).",
    ),
    Item(
        "Least share of a full-time employee's time at the facility",
        "ShareAtFacility",
        Kind.PERCENT,
        "%",
        key="share_at_facility",
        prompt="Least share of time at facility",
        help="Through the 2023 tax period; at least 10% (h.(1)).",
    ),
)


def _inputs(b: TemplateBuilder, values: Mapping[str, Any]) -> None:
    i = b.inputs
    i.title(
        "Inputs",
        "Type only in the yellow cells. Money in dollars, percentages as percentages (5%).",
    )
    b.lay_out(FILER, values)
    i.skip()
    i.section("Approved amounts by the calendar year the grant accrued (N.J.S.A. 34:1B-129e.)")
    i.note("Leave a year blank when nothing accrued in it was converted: blank counts as 0.")
    given = values.get("amounts") or {}
    amounts = [given.get(year) for year in ACCRUAL_YEARS]
    i.input_table(
        [f"Accrued in {year}" for year in ACCRUAL_YEARS],
        [
            Column(
                "Approved amount",
                Kind.MONEY,
                "$",
                name="ApprovedAmounts",
                help="Grant accrued in the year but not paid, as approved for conversion to "
                "tax credits; blank (or 0) if none.",
            ),
            Column(
                "Approval date",
                Kind.DATE,
                "date",
                name="ApprovalDates",
                help="Date the Authority approved the amount. Matters for 2008-2013 only "
                "(e.(1)): approved on or after 2016-07-01 moves the five installments. "
                "Blank = approved by 2016-07-01.",
            ),
        ],
        {
            "Approved amount": amounts,
            "Approval date": _by_year(values, "approval_dates", ACCRUAL_YEARS),
        },
        label_header="Accrual year",
    )
    i.skip()
    i.section("Tax liability by tax year (N.J.S.A. 34:1B-129f.)")
    i.note("Needed for every tax year with a credit; may stay blank for a year without one.")
    i.input_table(
        [f"Tax year {year}" for year in TAX_YEARS],
        [
            Column(
                "Tax liability",
                Kind.MONEY,
                "$",
                name="TaxLiabilities",
                help="Tax otherwise due on the return of tax year N (the period end is shown "
                "on Calculations), before this credit (applied first, before all other "
                "credits and payments).",
            )
        ],
        {"Tax liability": _by_year(values, "liabilities", TAX_YEARS)},
        label_header="Tax year",
    )
    b.lay_out(CREDIT_MINIMUM, values)
    b.lay_out(TRANSFER_AND_REMOTE_WORK, values)


# --------------------------------------------------------------------------- calculations


@dataclass(frozen=True)
class _Calculations:
    schedules: dict[int, Ref]
    matrix: tuple[Ref, ...]
    tax_years: Ref
    credit: Ref
    liability: Ref
    applied: Ref
    refund: Ref
    total_credit: Ref
    total_applied: Ref
    total_refund: Ref
    min_price: Ref
    transfer: Ref
    credit_2022: Ref
    payment: Ref
    remote: Ref


def _calculations(b: TemplateBuilder) -> _Calculations:
    c = b.calculations
    c.title("Calculations", "Formulas only: every figure comes from the NJ_* functions.")
    names = b.names
    c.section("Approved amounts converted (a blank approved amount converts nothing)")
    converted = c.formula_table(
        [Column("Amount converted", Kind.MONEY, "$", name="AmountsConverted")],
        [
            [_blank_is_zero(nth_cell(names["ApprovedAmounts"], n))]
            for n in range(len(ACCRUAL_YEARS))
        ],
        row_labels=[f"Accrued in {year}" for year in ACCRUAL_YEARS],
    )["Amount converted"]
    c.skip()
    schedules: dict[int, Ref] = {}
    for n, year in enumerate(ACCRUAL_YEARS):
        paragraph = beip.conversion_paragraph(year)
        amount = converted.cell(n).a
        schedules[year] = c.array_table(
            f"{b.fn('NJ_BEIP_CONVERSION_SCHEDULE')}({year},{amount},"
            f"{nth_cell(names['ApprovalDates'], n)},GrantApprovalDate,DirectionDate)",
            SCHEDULE_COLUMNS,
            rows=len(paragraph.shares),
            label=f"Accrued in {year}: conversion schedule (N.J.S.A. 34:1B-129e.("
            f"{paragraph.paragraph}))",
            name=f"Conversion{year}",
            # each installment row labelled with its accrual year: the matrix sums by it
            label_header="Accrual year",
            row_labels=[year] * len(paragraph.shares),
        )
    matrix, tax_years, credit = _matrix(b, c, schedules)
    table = _application(b, c, credit)
    year = REMOTE_WORK_TAX_YEAR
    on = CALCULATIONS
    figures = b.lay_out(
        [
            Section("Totals", sheet=on),
            Item("Total credit issued", "TotalCredit", MONEY, "$", _total(credit), role="total"),
            Item(
                "Total credit applied against the tax",
                "TotalApplied",
                MONEY,
                "$",
                _total(table["Credit applied"]),
                role="total",
            ),
            Item(
                "Total refunded as overpayments",
                "TotalRefund",
                MONEY,
                "$",
                _total(table["Refund (overpayment)"]),
                role="total",
            ),
            Skip(sheet=on),
            Section("Transfer certificate (N.J.S.A. 34:1B-129g.(3))", sheet=on),
            Item(
                "Lowest lawful consideration for the amount sold",
                "TransferMinPrice",
                MONEY,
                "$",
                'IF(TransferProposed="Yes",NJ_BEIP_TRANSFER_MIN_PRICE(TransferAmount,'
                'DiscountRate,0,SaleDate,CreditPeriodEnd),"")',
            ),
            Item(
                "The proposed sale (OK, or every reason it is not lawful)",
                "TransferVerdict",
                Kind.TEXT,
                "verdict",
                'IF(TransferProposed="Yes",NJ_BEIP_TRANSFER_CHECK(CertificateAmount,'
                "TransferAmount,Consideration,DiscountRate,0,SaleDate,CreditPeriodEnd,"
                'SellerIsTransferee),"no sale proposed")',
            ),
            Skip(sheet=on),
            Section("Remote-work election (N.J.S.A. 34:1B-129h.)", sheet=on),
            Item(
                f"The {year} tax period ends",
                "Period2022End",
                Kind.DATE,
                "date",
                f"NJ_TAX_PERIOD_END({year},FilerYearEndMonth,TaxYearNumbering)",
            ),
            Item(
                f"Tax credit for the {year} tax period (its installments)",
                "Credit2022",
                MONEY,
                "$",
                credit.cell(TAX_YEARS.index(year)).a,
            ),
            Item(
                "Payment owed to the Authority (5% of that credit)",
                "RemoteWorkPayment",
                MONEY,
                "$",
                'IF(RemoteWorkElection="Yes",NJ_BEIP_REMOTE_WORK_PAYMENT(Credit2022),0)',
            ),
            Item(
                "The election (OK, or every reason it fails)",
                "RemoteWorkVerdict",
                Kind.TEXT,
                "verdict",
                'IF(RemoteWorkElection="Yes",NJ_BEIP_REMOTE_WORK_CHECK(ElectionDate,'
                'ShareAtFacility),"no election made")',
            ),
        ]
    )
    total_credit, total_applied, total_refund = (
        figures[name] for name in ("TotalCredit", "TotalApplied", "TotalRefund")
    )
    min_price, transfer = figures["TransferMinPrice"], figures["TransferVerdict"]
    credit_2022, payment, remote = (
        figures[name] for name in ("Credit2022", "RemoteWorkPayment", "RemoteWorkVerdict")
    )
    return _Calculations(
        schedules=schedules,
        matrix=matrix,
        tax_years=tax_years,
        credit=credit,
        liability=table["Tax liability"],
        applied=table["Credit applied"],
        refund=table["Refund (overpayment)"],
        total_credit=total_credit,
        total_applied=total_applied,
        total_refund=total_refund,
        min_price=min_price,
        transfer=transfer,
        credit_2022=credit_2022,
        payment=payment,
        remote=remote,
    )


#: Accrual years per block of the matrix: three blocks of six print one page wide at a
#: readable size (one block of eighteen printed at a third of full size).
MATRIX_BLOCK = 6


def _matrix(
    b: TemplateBuilder, c: SheetWriter, schedules: Mapping[int, Ref]
) -> tuple[tuple[Ref, ...], Ref, Ref]:
    """The installments by tax year (rows) and accrual year (columns), in blocks of
    :data:`MATRIX_BLOCK` accrual years: ONE array formula per block, ``SUMIFS`` over the
    schedules above (each data row labelled with its accrual year), and, beside the last
    block, the total credit issued per tax year. Returns (blocks, tax years, totals)."""
    first, last = schedules[ACCRUAL_YEARS[0]], schedules[ACCRUAL_YEARS[-1]]
    region = Ref(c.name, first.row, c.LABEL, last.bottom, first.right)
    labels, tax_year, installment = (region.column(j).a for j in (0, 2, 4))
    header_text = SCHEDULE_COLUMNS[0].header
    count = len(TAX_YEARS)
    chunks = [
        ACCRUAL_YEARS[n : n + MATRIX_BLOCK] for n in range(0, len(ACCRUAL_YEARS), MATRIX_BLOCK)
    ]
    blocks: list[Ref] = []
    years = totals = Ref(c.name, 0, 0)
    for number, chunk in enumerate(chunks):
        is_last = number == len(chunks) - 1
        span = f"{chunk[0]}-{chunk[-1]}"
        c.section(
            f"Installments by tax year, accrued in {span} (N.J.S.A. 34:1B-129e.): one array "
            "formula over the schedules above",
            width=c.VALUE + MATRIX_BLOCK + 2,
        )
        columns = [
            Column("Tax year / accrued in", Kind.YEAR, width=12, role="label"),
            *(Column(str(year), Kind.MONEY, "$", width=14, number_header=True) for year in chunk),
        ]
        if is_last:
            columns.append(
                Column("Total credit issued (all years)", Kind.MONEY, "$", width=14, role="total")
            )
        years_column, first_year, last_year = columns[0].header, str(chunk[0]), str(chunk[-1])
        formula = (
            f'IF(COUNTIF({tax_year},"{header_text}")=ROWS(ApprovedAmounts),'
            f"SUMIFS({installment},{tax_year},[[column:{years_column}]],{labels},"
            f'[[header:{first_year}:{last_year}]]),"{NOT_COMPUTED}")'
        )
        cells: list[list[str | float | Spill | None]] = []
        for n, year in enumerate(TAX_YEARS):
            row: list[str | float | Spill | None] = [year]
            row += [Spill(formula, len(chunk), count) if n == 0 else None]
            row += [None] * (len(chunk) - 1)
            if is_last:  # the total: this row of every block
                parts = [m.line(n).a for m in blocks] + [f"[[row:{first_year}:{last_year}]]"]
                counted = "+".join(f"COUNT({r})" for r in parts)
                width = "+".join(f"COLUMNS({r})" for r in parts)
                added = "+".join(f"SUM({r})" for r in parts)
                row.append(f'IF({counted}={width},ROUND({added},2),"{NOT_COMPUTED}")')
            cells.append(row)
        table = c.formula_table(
            columns,
            cells,
            row_labels=[f"Tax year {year}" for year in TAX_YEARS],
            label_header="Tax year",
        )
        first_column, last_column = table[first_year], table[last_year]
        block = Ref(c.name, first_column.row, first_column.col, last_column.bottom, last_column.col)
        b.define_name(f"AccrualYears{chunk[0]}_{chunk[-1]}", table.header.span(1, len(chunk)))
        b.define_name(f"Installments{chunk[0]}_{chunk[-1]}", block)
        blocks.append(block)
        if number == 0:
            years = table["Tax year / accrued in"]
        if is_last:
            totals = table["Total credit issued (all years)"]
    b.define_name("TaxYears", years)
    b.define_name("CreditIssued", totals)
    return tuple(blocks), years, totals


def _application(b: TemplateBuilder, c: SheetWriter, credit: Ref) -> dict[str, Ref]:
    """Per tax year: the credit issued and the liability (one array formula each, for the
    reader), the credit applied and the refund (N.J.S.A. 34:1B-129f.)."""
    columns = [
        Column("Credit issued", Kind.MONEY, "$"),
        Column("Tax liability", Kind.MONEY, "$"),
        Column("Credit applied", Kind.MONEY, "$", name="CreditApplied"),
        Column("Refund (overpayment)", Kind.MONEY, "$", name="CreditRefund"),
        Column("Return: period end", Kind.DATE, "date", name="ReturnPeriodEnds", width=12),
    ]
    c.section(
        "Credit applied against each tax year's liability (N.J.S.A. 34:1B-129f.)",
        width=c.VALUE + len(columns),
    )
    count = len(TAX_YEARS)
    liabilities = b.names["TaxLiabilities"]
    cells: list[list[str | float | Spill | None]] = []
    for n, year in enumerate(TAX_YEARS):
        issued, liability = credit.cell(n).a, nth_cell(liabilities, n)
        cells.append(
            [
                Spill(credit.a, 1, count) if n == 0 else None,
                Spill('IF(ISBLANK(TaxLiabilities),"",TaxLiabilities)', 1, count)
                if n == 0
                else None,
                *(
                    f"IF({issued}=0,0,{b.fn(function)}({issued},{liability},CreditMinimumTax))"
                    for function in ("NJ_BEIP_CREDIT_APPLIED", "NJ_BEIP_CREDIT_REFUND")
                ),
                f"{b.fn('NJ_TAX_PERIOD_END')}({year},FilerYearEndMonth,TaxYearNumbering)",
            ]
        )
    return c.formula_table(
        columns,
        cells,
        row_labels=[f"Tax year {year}" for year in TAX_YEARS],
        label_header="Tax year",
    )


def _blank_is_zero(cell: str) -> str:
    """A blank approved amount converts nothing (text or an error still reaches the
    function, which rejects it with its message)."""
    return f"IF(ISBLANK({cell}),0,{cell})"


def _total(ref: Ref) -> str:
    """The sum of ``ref`` when every cell is a number, else :data:`NOT_COMPUTED`.

    Rounded to the cent: the parts are whole cents, and the rounding only removes the
    binary floating-point residue of adding them (0.1 + 0.2), so that the total passed
    on to an NJ_* function is the exact amount."""
    every = f"COUNT({ref.a})=ROWS({ref.a})*COLUMNS({ref.a})"
    return f'IF({every},ROUND(SUM({ref.a}),2),"{NOT_COMPUTED}")'


# --------------------------------------------------------------------------- outputs


def _outputs(b: TemplateBuilder, calc: _Calculations) -> None:
    o = b.outputs
    o.title("Outputs", "Valid only when Checks!MasterCheck is TRUE.")
    o.formula("All checks pass", "MasterCheck", Kind.CHECK, "TRUE/FALSE", role="output")
    o.formula("Total tax credit issued", "TotalCredit", Kind.MONEY, "$", role="output")
    o.formula(
        "Total credit applied against the tax", calc.total_applied.a, Kind.MONEY, "$", role="output"
    )
    o.formula("Total refunded as overpayments", calc.total_refund.a, Kind.MONEY, "$", role="output")
    o.formula(
        "Tax years with a credit",
        f'COUNTIF({calc.credit.a},">0")',
        Kind.COUNT,
        "years",
        role="output",
    )
    o.formula(
        "Transfer certificate: lowest lawful consideration",
        "TransferMinPrice",
        Kind.MONEY,
        "$",
        role="output",
    )
    o.formula(
        "Transfer certificate: the proposed sale",
        "TransferVerdict",
        Kind.TEXT,
        "verdict",
        role="output",
    )
    o.formula(
        "Remote-work election: payment owed", "RemoteWorkPayment", Kind.MONEY, "$", role="output"
    )
    o.formula(
        "Remote-work election: conditions", "RemoteWorkVerdict", Kind.TEXT, "verdict", role="output"
    )
    o.skip()
    o.chart(
        "BEIP tax credit installments by tax year",
        calc.tax_years,
        [
            ("Credit issued (installments)", calc.credit),
            ("Credit applied against the tax", calc.applied),
            ("Refund (overpayment)", calc.refund),
        ],
        y_title="$",
        x_title="Tax year",
    )


# --------------------------------------------------------------------------- checks


def _checks(b: TemplateBuilder, calc: _Calculations) -> None:
    b.check(
        "Every approved amount is a number, or blank for none",
        "COUNT(ApprovedAmounts)+COUNTBLANK(ApprovedAmounts)=ROWS(ApprovedAmounts)",
        "N.J.S.A. 34:1B-129e.",
    )
    b.check(
        "The matrix holds a number for every tax year and accrual year",
        "AND(" + ",".join(f"COUNT({m.a})=ROWS({m.a})*COLUMNS({m.a})" for m in calc.matrix) + ")",
    )
    b.check_equal(
        "The credits issued sum to the approved amounts (no installment falls outside "
        f"{TAX_YEARS[0]}-{TAX_YEARS[-1]})",
        "TotalCredit",
        "SUM(ApprovedAmounts)",
        "N.J.S.A. 34:1B-129e.(1)-(13)",
    )
    b.check_numbers(
        "Credit applied and refund are numbers for every tax year",
        Ref(
            calc.applied.sheet,
            calc.applied.row,
            calc.applied.col,
            calc.refund.bottom,
            calc.refund.col,
        ),
    )
    b.check(
        "Credit applied plus refund equals the credit issued, every tax year",
        f"SUMPRODUCT(--(ABS({calc.applied.a}+{calc.refund.a}-{calc.credit.a})>={CENT_TOLERANCE}))=0",
        "N.J.S.A. 34:1B-129f.",
    )
    b.check(
        "No tax year's credit applied exceeds its tax liability",
        f"SUMPRODUCT(--({calc.applied.a}>TaxLiabilities+{CENT_TOLERANCE}))=0",
        "N.J.S.A. 34:1B-129f.",
    )
    b.check_equal(
        "Total applied plus total refunded equals the total credit issued",
        f"{calc.total_applied.a}+{calc.total_refund.a}",
        "TotalCredit",
        "N.J.S.A. 34:1B-129f.",
    )
    b.check(
        "The proposed sale of the transfer certificate is lawful (or none is proposed)",
        'OR(TransferProposed="No",AND(TransferVerdict="OK",ISNUMBER(TransferMinPrice)))',
        "N.J.S.A. 34:1B-129g.(3)",
    )
    b.check(
        "The remote-work election meets its conditions (or none was made)",
        'OR(RemoteWorkElection="No",AND(RemoteWorkVerdict="OK",ISNUMBER(RemoteWorkPayment)))',
        "N.J.S.A. 34:1B-129h., h.(1), h.(2)",
    )
    b.check(
        f"The {REMOTE_WORK_TAX_YEAR} credit the payment is based on is a number",
        "ISNUMBER(Credit2022)",
        "N.J.S.A. 34:1B-129h.(2)",
    )
