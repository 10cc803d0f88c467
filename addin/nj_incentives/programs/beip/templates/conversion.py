"""Template 2: BEIP grants converted to tax credits (N.J.S.A. 34:1B-129e.-h.).

Inputs: the approved amount accrued but not paid in each calendar year 2008-2025, with
its approval date (which moves paragraph (1)'s schedule, e.(1)); the tax liability of
each tax year; a proposed sale of a tax credit transfer certificate (g.(3)) and who may
sell and buy it (g.(1)-(3), facts stated, blank = not checked); the remote-work election
(h.).

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

The template is declared: :data:`TEMPLATE` holds its line items (inputs, tables, figures,
chart, checks), which the builder lays out; each formula names what it reads. Every
figure comes from an NJ_* function; the formulas around them are presentation only
(builder.py's docstring lists what they may do).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from nj_incentives.core.inputs import InputKind
from nj_incentives.core.workpaper import (
    CALCULATIONS,
    CENT_TOLERANCE,
    NOT_COMPUTED,
    OUTPUTS,
    RETURN_SHEET,
    ArrayTable,
    CarriedFigure,
    Chart,
    Check,
    Column,
    FormulaTable,
    InputTable,
    Item,
    Kind,
    Last,
    LineItem,
    Note,
    ReturnBlock,
    RolledPeriod,
    RollForward,
    RollRefused,
    Section,
    Skip,
    SourceHeading,
    Span,
    Spill,
    Title,
    Workpaper,
    column_values,
    last_row,
    money,
    named_period,
    row_cell,
)
from nj_incentives.programs import forms as F
from nj_incentives.programs import return_sheet as returns
from nj_incentives.programs import template_inputs as inputs
from nj_incentives.programs.awards import sheet as calendar
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as beip
from nj_incentives.programs.beip.functions import CONVERSION_SCHEDULE_COLUMNS
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.cbt import transit_fee
from nj_incentives.programs.remote_work import figures as RW

__all__ = [
    "ACCRUAL_YEARS",
    "EXAMPLE",
    "RETURN",
    "ROLL_FORWARD",
    "TAX_YEARS",
    "TEMPLATE_ID",
    "return_block",
    "workpaper",
]

#: BEIP's subsection h. (its figures: programs/remote_work/figures.py's declaration).
H = BEIP.H

MONEY = Kind.MONEY
TEMPLATE_ID = "beip-credit-conversion"

#: Calendar years whose grants subsection e. converts, N.J.S.A. 34:1B-129e.(1)-(13).
ACCRUAL_YEARS = tuple(range(beip.FIRST_ACCRUAL_YEAR, beip.LAST_ACCRUAL_YEAR + 1))
#: The matrix's tax years: from 2017, the first tax period of e.(1), to 2030, so that an
#: amount of paragraph (1) approved as late as June 30, 2026 (State fiscal year 2026)
#: still has its five installments inside (a check fails if one falls outside).
TAX_YEARS = tuple(range(beip.CONVERSION_PARAGRAPHS[0].first_tax_year, 2031))
#: The tax period whose credit sets the remote-work payment, N.J.S.A. 34:1B-129h.(2).
REMOTE_WORK_TAX_YEAR = H.tax_year.single
#: The first day of P.L.2024, c.40's rule; the first tax year the template computes its
#: 10% payment for (every tax year from it ends after that day, whatever the year end).
_C40 = H.c40_from.single
C40_FIRST_TAX_YEAR = _C40.year
_FROM = H.waiver_start.single
_WAIVED = H.waived_share.text()

#: NJ_BEIP_CONVERSION_SCHEDULE's result columns, as the catalog declares them (the three a
#: calendar-year filer's table has: the template's filer files by calendar year)
_SHOWN = {
    "int": (Kind.YEAR, "", 10),
    "fraction": (Kind.PERCENT, "%", 10),
    "money": (Kind.MONEY, "$", 16),
}
SCHEDULE_COLUMNS = tuple(
    Column(column.header, kind, unit, width=width)
    for column in CONVERSION_SCHEDULE_COLUMNS[:3]
    for kind, unit, width in [_SHOWN[column.unit]]
)

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
    "remote_work_c40": True,
    "enhanced_area": False,
    "share_at_facility_c40": 0.4,
    "commitment_end": dt.date(2026, 6, 30),
    "c40_commitment_extended": True,
    "c40_payment_made": True,
    "first_year_end": dt.date(2010, 12, 31),
    "term": 10,
    "base_employment": 250,
    # each grant year's report filed by March 1 (the business day before when it is a
    # Saturday or Sunday: 2014, 2015 and 2020)
    "report_filed": [
        dt.date(2011, 2, 25),
        dt.date(2012, 2, 28),
        dt.date(2013, 2, 27),
        dt.date(2014, 2, 27),
        dt.date(2015, 2, 26),
        dt.date(2016, 2, 26),
        dt.date(2017, 2, 28),
        dt.date(2018, 2, 27),
        dt.date(2019, 2, 28),
        dt.date(2020, 2, 27),
    ],
    "obligations_as_of": dt.date(2026, 12, 1),
}


def workpaper(values: Mapping[str, Any] | None = None) -> Workpaper:
    """The workbook for ``values`` (keys as in :data:`EXAMPLE`; none: the blank template)."""
    values = values or {}
    return Workpaper(
        TEMPLATE_ID,
        "BEIP credit conversion",
        "BEIP grants accrued but not paid in 2008-2025 and converted to tax credits: the "
        "installments by accrual year and tax year (N.J.S.A. 34:1B-129e.(1)-(13)), the "
        "credit applied against each year's tax and the excess refunded as an "
        "overpayment (f.), a check of a proposed sale of a tax credit transfer "
        "certificate (g.(3)), and the remote-work election's payment and conditions "
        "(h.). The approved amounts are the Authority's: enter them as approved.",
        TEMPLATE,
        values,
        engagement=values.get("engagement"),
        output_sheets=(
            (RETURN_SHEET, "one tax year's return: Form 324 and Schedule A-3"),
            (
                calendar.CALENDAR,
                "the award's dated obligations (annual reports, the 80% employment test, the "
                "commitment, P.L.2024, c.40's extension and payments), past due as of Inputs' "
                "'Obligations as of'",
            ),
        ),
        sheet_notes=(
            (
                calendar.CALENDAR,
                "the award's dated obligations (annual reports, the 80% employment test, the "
                "commitment, P.L.2024, c.40's extension and payments), past due as of Inputs' "
                "'Obligations as of'",
            ),
            (
                "Calculations",
                "one conversion schedule per accrual year, the matrix of installments by "
                "tax year and accrual year, the credit applied and refunded per tax year, "
                "the transfer and remote-work results",
            ),
        ),
        sources=(
            "N.J.S.A. 34:1B-129e. (conversion, P.L.2015, c.194), f. (application), "
            "g. (transfer certificates), h. (remote-work election, P.L.2022, c.134)",
            "docs/interpretations.md: rounding of installments, late approval (e.(1)), "
            "transfer minimum price, remote-work election",
            "N.J.S.A. 34:1B-130, -131 a.; N.J.A.C. 19:31I-1.6 (the award's obligations)",
        ),
    )


# --------------------------------------------------------------------------- inputs


#: Inputs: the filer's returns and the dates of approval and direction.
FILER: tuple[LineItem, ...] = (
    Title(
        "Inputs",
        "Type only in the yellow cells. Money in dollars, percentages as percentages (5%).",
    ),
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
        help=f"Must be before {beip.ENACTMENT_P_L_2015_C_194}, the enactment of P.L.2015, "
        "c.194 (e.). Blank = not checked.",
    ),
    Item(
        "Date the business directed the conversion",
        "DirectionDate",
        Kind.DATE,
        "date",
        key="direction_date",
        prompt="Conversion direction date",
        help=f"Within {beip.DIRECTION_DAYS} days of the enactment: "
        f"{beip.ENACTMENT_P_L_2015_C_194} to {beip.DIRECTION_DEADLINE}, the Authority's "
        "published deadline (e.). Blank = not checked.",
    ),
    # the kind of taxpayer (CBT-100S, public utility): no Corporate Transit Fee is due
    # from it (P.L.2024, c.20), checked against the fees entered by tax year
    *transit_fee.kind_items(),
    # Form 324 (2023 edition): a combined return filer skips Part III and completes Part
    # IV, whose lines no source found gives (docs/interpretations.md, "Form 324"): Yes,
    # the Return sheet and block show no Part III figure (return_sheet.ReturnSkip)
    returns.combined_filer_item(),
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
        help=f"At least {BEIP.TRANSFER_MINIMUM.summary()},"
        " or the whole credit if it is less (g.(3)).",
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
    Item(
        "The seller pays the Corporation Business Tax or an insurance premiums tax",
        "SellerPaysTax",
        Kind.YESNO,
        "yes/no",
        key="seller_pays_tax",
        prompt="Seller pays CBT or premiums tax?",
        help="A business that pays none of them may apply for the certificate (34:1B-129 "
        "g.(1)); one that pays may apply under g.(2) only. Blank = not checked.",
    ),
    Item(
        "The seller's credit under e. exceeds its tax liability",
        "CreditExceedsLiability",
        Kind.YESNO,
        "yes/no",
        key="credit_exceeds_liability",
        prompt="Credit exceeds the liability?",
        help="A business whose credit under e. exceeds the tax liability otherwise due may "
        "apply for the certificate (34:1B-129 g.(2)). Blank = not checked.",
    ),
    Item(
        "The buyer may have a CBT or insurance premiums tax liability",
        "BuyerMayOweTax",
        Kind.YESNO,
        "yes/no",
        key="buyer_may_owe_tax",
        prompt="Buyer may owe CBT/premiums tax?",
        help="The certificate may be sold only to a person that may have such a tax "
        "liability (34:1B-129 g.(3)). Blank = not checked.",
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
        help=f"Yes if the business elected to waive the {_WAIVED} on-site requirement for "
        f"{H.waiver_start.single} to {H.waiver_end.base} (extended to "
        f"{H.waiver_end.at()} in 2024).",
    ),
    Item(
        "Date of the election",
        "ElectionDate",
        Kind.DATE,
        "date",
        key="election_date",
        help=f"On or after {RW.EMERGENCY_ENDED.single} (the end of the public health emergency, "
        f"Executive Order No. 244) and before {H.election_before.single} (h.).",
    ),
    Item(
        "Least share of a full-time employee's time at the facility",
        "ShareAtFacility",
        Kind.PERCENT,
        "%",
        key="share_at_facility",
        prompt="Least share of time at facility",
        help=f"Through the 2023 tax period; at least {H.minimum_share.text(_FROM)} (h.(1)).",
    ),
    Item(
        f"The business keeps the waiver from {_C40} (P.L.2024, c.40)",
        "RemoteWorkC40",
        Kind.YESNO,
        "yes/no",
        key="remote_work_c40",
        default="No",
        prompt=f"Waiver from {_C40}?",
        help=f"Yes if the on-site requirement is waived for tax periods from {_C40} (P.L.2024, "
        f"c.40): {H.minimum_share.text(_C40)} on site, the commitment period "
        f"extended, {H.payment_share.text(_C40)} of each period's credit paid.",
    ),
    Item(
        "The facility is in an enhanced area or a government-restricted municipality",
        "EnhancedArea",
        Kind.YESNO,
        "yes/no",
        key="enhanced_area",
        prompt="In an enhanced area?",
        help=f"A fact you state. Yes: no waiver from {_C40} (the {_WAIVED} requirement applies).",
    ),
    Item(
        f"Least share of a full-time employee's time at the facility from {_C40}",
        "ShareAtFacilityC40",
        Kind.PERCENT,
        "%",
        key="share_at_facility_c40",
        prompt=f"Least share from {_C40}",
        help=f"During each tax period from {_C40}; at least "
        f"{H.minimum_share.text(_C40)} (P.L.2024, c.40).",
    ),
    Item(
        "Last day of the commitment period",
        "CommitmentEnd",
        Kind.DATE,
        "date",
        key="commitment_end",
        prompt="Commitment period ends",
        help="As the incentive agreement sets it; P.L.2024, c.40 extends it by two years.",
    ),
    Item(
        "The commitment period has been extended by two years",
        "C40CommitmentExtended",
        Kind.YESNO,
        "yes/no",
        key="c40_commitment_extended",
        prompt="Commitment extended?",
        help=f"A condition of the waiver from {_C40} (P.L.2024, c.40): blank or No, the waiver "
        "is not confirmed.",
    ),
    Item(
        "The non-refundable payment for each period has been made",
        "C40PaymentMade",
        Kind.YESNO,
        "yes/no",
        key="c40_payment_made",
        prompt="Payments made?",
        help=f"A condition of the waiver from {_C40} (P.L.2024, c.40): "
        f"{H.payment_share.text(_C40)} of each period's maximum credit; blank or No, the "
        "waiver is not confirmed.",
    ),
)


#: Inputs: the approved amounts by accrual year and the liabilities by tax year.
BY_YEAR: tuple[LineItem, ...] = (
    Skip(),
    Section("Approved amounts by the calendar year the grant accrued (N.J.S.A. 34:1B-129e.)"),
    Note("Leave a year blank when nothing accrued in it was converted: blank counts as 0."),
    InputTable(
        tuple(f"Accrued in {year}" for year in ACCRUAL_YEARS),
        (
            Column(
                "Approved amount",
                Kind.MONEY,
                "$",
                name="ApprovedAmounts",
                key="amounts",
                help="Grant accrued in the year but not paid, as approved for conversion to "
                "tax credits; blank (or 0) if none.",
            ),
            Column(
                "Approval date",
                Kind.DATE,
                "date",
                name="ApprovalDates",
                key="approval_dates",
                help="Date the Authority approved the amount. Matters for 2008-2013 only "
                f"(e.(1)): approved on or after {beip.STATE_FISCAL_YEAR_2017_START} moves the"
                f" five installments. Blank = approved by {beip.STATE_FISCAL_YEAR_2017_START}.",
            ),
        ),
        label_header="Accrual year",
        row_keys=ACCRUAL_YEARS,
    ),
    Skip(),
    Section("Tax liability by tax year (N.J.S.A. 34:1B-129f.)"),
    Note("Needed for every tax year with a credit; may stay blank for a year without one."),
    InputTable(
        tuple(f"Tax year {year}" for year in TAX_YEARS),
        (
            Column(
                "Tax liability",
                Kind.MONEY,
                "$",
                name="TaxLiabilities",
                key="liabilities",
                help="Tax otherwise due on the return of tax year N (the period end is shown "
                "on Calculations), before this credit (applied first, before all other "
                "credits and payments): the CBT before the Corporate Transit Fee (P.L.2024, "
                "c.20; no credit reduces the fee).",
            ),
            transit_fee.column("TransitFees"),
        ),
        label_header="Tax year",
        row_keys=TAX_YEARS,
    ),
)


# --------------------------------------------------------------------------- calculations


def _schedule(n: int, year: int) -> ArrayTable:
    """The conversion schedule of the amount accrued in ``year`` (the ``n``-th accrual
    year), each installment row labelled with its accrual year (the matrix sums by it)."""
    paragraph = beip.conversion_paragraph(year)
    return ArrayTable(
        f"NJ_BEIP_CONVERSION_SCHEDULE({year},[[at:AmountsConverted:{n}]],"
        f"[[at:ApprovalDates:{n}]],GrantApprovalDate,DirectionDate)",
        SCHEDULE_COLUMNS,
        rows=len(paragraph.shares),
        label=f"Accrued in {year}: conversion schedule (N.J.S.A. 34:1B-129e.("
        f"{paragraph.paragraph}))",
        name=f"Conversion{year}",
        label_header="Accrual year",
        row_labels=(year,) * len(paragraph.shares),
    )


#: Accrual years per block of the matrix: three blocks of six print one page wide at a
#: readable size (one block of eighteen printed at a third of full size).
MATRIX_BLOCK = 6
_CHUNKS = tuple(
    ACCRUAL_YEARS[n : n + MATRIX_BLOCK] for n in range(0, len(ACCRUAL_YEARS), MATRIX_BLOCK)
)
_BLOCK_NAMES = tuple(f"Installments{chunk[0]}_{chunk[-1]}" for chunk in _CHUNKS)
_YEARS_COLUMN = "Tax year / accrued in"
_TOTAL_COLUMN = "Total credit issued (all years)"


def _matrix_block(number: int) -> tuple[LineItem, ...]:
    """One block of the installments by tax year (rows) and accrual year (columns): ONE
    array formula, ``SUMIFS`` over the schedules above (their tax years and installments
    stacked, each data row labelled with its accrual year); beside the last block the
    total credit issued per tax year (named CreditIssued; the first block's tax years are
    TaxYears)."""
    chunk = _CHUNKS[number]
    is_last = number == len(_CHUNKS) - 1
    first_year, last_year = str(chunk[0]), str(chunk[-1])
    schedules = f"Conversion{ACCRUAL_YEARS[0]}:Conversion{ACCRUAL_YEARS[-1]}"
    tax_year = f"[[stack:{schedules}:{SCHEDULE_COLUMNS[0].header}]]"
    installment = f"[[stack:{schedules}:{SCHEDULE_COLUMNS[2].header}]]"
    columns = [
        Column(
            _YEARS_COLUMN,
            Kind.YEAR,
            width=12,
            role="label",
            name="TaxYears" if number == 0 else None,
        ),
        *(Column(str(year), Kind.MONEY, "$", width=14, number_header=True) for year in chunk),
    ]
    if is_last:
        columns.append(
            Column(_TOTAL_COLUMN, Kind.MONEY, "$", width=14, role="total", name="CreditIssued")
        )
    formula = (
        f'IF(COUNTIF({tax_year},"{SCHEDULE_COLUMNS[0].header}")=ROWS(ApprovedAmounts),'
        f"SUMIFS({installment},{tax_year},[[column:{_YEARS_COLUMN}]],[[labels:{schedules}]],"
        f'[[header:{first_year}:{last_year}]]),"{NOT_COMPUTED}")'
    )
    # the total: this row of every block
    parts = [f"[[line:{name}:row]]" for name in _BLOCK_NAMES[:number]]
    parts.append(f"[[row:{first_year}:{last_year}]]")
    total = (
        f"IF({'+'.join(f'COUNT({r})' for r in parts)}={'+'.join(f'COLUMNS({r})' for r in parts)},"
        f'ROUND({"+".join(f"SUM({r})" for r in parts)},2),"{NOT_COMPUTED}")'
    )
    rows = tuple(
        (
            year,
            Spill(formula, len(chunk), len(TAX_YEARS)) if n == 0 else None,
            *([None] * (len(chunk) - 1)),
            *([total] if is_last else []),
        )
        for n, year in enumerate(TAX_YEARS)
    )
    return (
        Section(
            f"Installments by tax year, accrued in {first_year}-{last_year} (N.J.S.A. "
            "34:1B-129e.): one array formula over the schedules above",
            width=2 + MATRIX_BLOCK + 2,
            sheet=CALCULATIONS,
        ),
        FormulaTable(
            tuple(columns),
            rows,
            row_labels=tuple(f"Tax year {year}" for year in TAX_YEARS),
            label_header="Tax year",
            spans=(
                Span(f"AccrualYears{first_year}_{last_year}", first_year, last_year, header=True),
                Span(_BLOCK_NAMES[number], first_year, last_year),
            ),
        ),
    )


_APPLICATION_COLUMNS = (
    Column("Credit issued", Kind.MONEY, "$"),
    Column("Tax liability", Kind.MONEY, "$"),
    Column("Credit applied", Kind.MONEY, "$", name="CreditApplied"),
    Column("Refund (overpayment)", Kind.MONEY, "$", name="CreditRefund"),
    Column("Return: period end", Kind.DATE, "date", name="ReturnPeriodEnds", width=12),
)

#: Each tax year's liability as the input rule reads it ("1,000" is 1000; "$1,000.00" is
#: refused, the refusal shown), as NJ_BEIP_CREDIT_APPLIED reads it.
_LIABILITIES = inputs.read_for("TaxLiabilities", InputKind.MONEY, "NJ_BEIP_CREDIT_APPLIED")

#: Per tax year: the credit issued and the liability as read (one array formula each, for
#: the reader), the credit applied and the refund (N.J.S.A. 34:1B-129f.), the return's period.
APPLICATION: tuple[LineItem, ...] = (
    Section(
        "Credit applied against each tax year's liability (N.J.S.A. 34:1B-129f.)",
        width=2 + len(_APPLICATION_COLUMNS),
        sheet=CALCULATIONS,
    ),
    FormulaTable(
        _APPLICATION_COLUMNS,
        tuple(
            (
                Spill("[[name:CreditIssued]]", 1, len(TAX_YEARS)) if n == 0 else None,
                Spill(f'IF(ISBLANK(TaxLiabilities),"",{_LIABILITIES})', 1, len(TAX_YEARS))
                if n == 0
                else None,
                *(
                    f"IF([[at:CreditIssued:row]]=0,0,{function}([[at:CreditIssued:row]],"
                    "[[at:TaxLiabilities:row]],CreditMinimumTax))"
                    for function in ("NJ_BEIP_CREDIT_APPLIED", "NJ_BEIP_CREDIT_REFUND")
                ),
                f"NJ_TAX_PERIOD_END({year},FilerYearEndMonth,TaxYearNumbering)",
            )
            for n, year in enumerate(TAX_YEARS)
        ),
        row_labels=tuple(f"Tax year {year}" for year in TAX_YEARS),
        label_header="Tax year",
        name="Application",
    ),
)

#: The return's lines per tax year (Form 324, Schedule A-3 of the CBT-100), each header
#: the line's label with its form and edition (law/forms.py), beside the credit of the
#: tax year: the figures of the table above shown again.
_RETURN_COLUMNS = (
    (F.FORM_324_APPROVED, "Form324ApprovedCredit", "[[name:CreditIssued]]"),
    (F.FORM_324_LIABILITY, "Form324TaxLiability", "[[data:Application:Tax liability]]"),
    (F.FORM_324_ALLOWABLE, "Form324AllowableCredit", "[[name:CreditApplied]]"),
    (F.FORM_324_REFUND, "Form324Refund", "[[name:CreditRefund]]"),
    (F.SCHEDULE_A3_BEIP, "ScheduleA3BEIP", "[[name:CreditApplied]]"),
)
RETURN_LINES: tuple[LineItem, ...] = (
    Section(
        f"The return, per tax year: {F.FORM_324.name} and {F.SCHEDULE_A3.name}",
        width=2 + len(_RETURN_COLUMNS),
        sheet=CALCULATIONS,
    ),
    Note(
        f"{F.FORM_324_CERTIFICATE.label()}: the certificate of each tax year's credit. "
        f"Line {F.FORM_324_OTHER_CREDITS.number} ({F.FORM_324_OTHER_CREDITS.what}) and line "
        f"{F.FORM_324_NET.number} ({F.FORM_324_NET.what}) are not computed here: the credit "
        "is applied first, before all other credits (N.J.A.C. 18:7-3.17), against the "
        "liability of line "
        f"{F.FORM_324_LIABILITY.number}. A line 'to be confirmed' is not given by our "
        "sources for that edition (docs/interpretations.md, Form lines and their editions).",
        sheet=CALCULATIONS,
    ),
    FormulaTable(
        tuple(
            Column(line.label(), Kind.MONEY, "$", name=name) for line, name, _ in _RETURN_COLUMNS
        ),
        # one formula a column, over every tax year (the columns of the table above)
        tuple(
            tuple(
                Spill(formula, 1, len(TAX_YEARS)) if n == 0 else None
                for _, _, formula in _RETURN_COLUMNS
            )
            for n in range(len(TAX_YEARS))
        ),
        row_labels=tuple(f"Tax year {year}" for year in TAX_YEARS),
        label_header="Tax year",
        name="ReturnLines",
        sheet=CALCULATIONS,
    ),
    Section(
        "Corporate Transit Fee per tax year (P.L.2024, c.20; apart from the CBT, no credit "
        "reduces it)",
        width=3,
        sheet=CALCULATIONS,
    ),
    FormulaTable(
        (
            Column("Period begins", Kind.DATE, "date", name="TransitFeePeriodBegins"),
            Column("Corporate Transit Fee", Kind.MONEY, "$", name="ReturnTransitFees"),
        ),
        tuple(
            (
                # the day after the tax year before ends (the periods' ends as above)
                f"NJ_TAX_PERIOD_END({year - 1},FilerYearEndMonth,TaxYearNumbering)+1",
                transit_fee.amount("[[at:TransitFees:row]]"),
            )
            for year in TAX_YEARS
        ),
        row_labels=tuple(f"Tax year {year}" for year in TAX_YEARS),
        label_header="Tax year",
        name="TransitFeePeriods",
        sheet=CALCULATIONS,
    ),
)


def _total(ref: str) -> str:
    """The sum of ``ref`` (a reference) when every cell is a number, else
    :data:`NOT_COMPUTED`.

    Rounded to the cent: the parts are whole cents, and the rounding only removes the
    binary floating-point residue of adding them (0.1 + 0.2), so that the total passed
    on to an NJ_* function is the exact amount."""
    every = f"COUNT({ref})=ROWS({ref})*COLUMNS({ref})"
    return f'IF({every},ROUND(SUM({ref}),2),"{NOT_COMPUTED}")'


_ON = CALCULATIONS
#: The three Yes/No switches, read as the functions read a boolean (TRUE, 1, "yes" are
#: Yes; a value that is neither is refused, naming the rule), each citing the function it
#: turns on (the citation of its input check).
_TRANSFER = inputs.yes_no("TransferProposed", "NJ_BEIP_TRANSFER_MIN_PRICE")
_ELECTION = inputs.yes_no("RemoteWorkElection", "NJ_BEIP_REMOTE_WORK_PAYMENT")
_C40_WAIVER = inputs.yes_no("RemoteWorkC40", "NJ_BEIP_REMOTE_WORK_CHECK")
#: The transfer's ``years``: the whole period from the sale to the end of the credit's tax
#: period, asked by a blank ``years``, spelled ``""`` (an empty text, which every NJ_*
#: function reads as a blank cell, in Excel, LibreOffice and the headless recalculation
#: alike); a 0 there would mean no discounting (N.J.S.A. 34:1B-129g.(3); issue 34).
WHOLE_PERIOD = '""'
#: The transfer check's ``max_discount_rate``, blank: the function's own bound (20%).
DEFAULT_BOUND = '""'
#: The tax year whose credit the remote-work payment is a share of, in the matrix's rows.
_REMOTE_WORK_ROW = TAX_YEARS.index(REMOTE_WORK_TAX_YEAR)

#: Calculations: totals, the transfer certificate and the remote-work election.
TOTALS_TRANSFER_REMOTE_WORK: tuple[LineItem, ...] = (
    Section("Totals", sheet=_ON),
    Item(
        "Total credit issued",
        "TotalCredit",
        MONEY,
        "$",
        _total("[[name:CreditIssued]]"),
        role="total",
    ),
    Item(
        "Total credit applied against the tax",
        "TotalApplied",
        MONEY,
        "$",
        _total("[[data:Application:Credit applied]]"),
        role="total",
    ),
    Item(
        "Total refunded as overpayments",
        "TotalRefund",
        MONEY,
        "$",
        _total("[[data:Application:Refund (overpayment)]]"),
        role="total",
    ),
    Skip(sheet=_ON),
    Section("Transfer certificate (N.J.S.A. 34:1B-129g.(3))", sheet=_ON),
    Item(
        "Lowest lawful consideration for the amount sold",
        "TransferMinPrice",
        MONEY,
        "$",
        inputs.switch(
            _TRANSFER,
            f"NJ_BEIP_TRANSFER_MIN_PRICE(TransferAmount,DiscountRate,{WHOLE_PERIOD},SaleDate,"
            "CreditPeriodEnd)",
            '""',
        ),
    ),
    Item(
        "The proposed sale (OK, or every reason it is not lawful)",
        "TransferVerdict",
        Kind.TEXT,
        "verdict",
        inputs.switch(
            _TRANSFER,
            "NJ_BEIP_TRANSFER_CHECK(CertificateAmount,TransferAmount,Consideration,"
            f"DiscountRate,{WHOLE_PERIOD},SaleDate,CreditPeriodEnd,SellerIsTransferee,"
            f"{DEFAULT_BOUND},SellerPaysTax,CreditExceedsLiability,BuyerMayOweTax)",
            '"no sale proposed"',
        ),
    ),
    Skip(sheet=_ON),
    Section("Remote-work election (N.J.S.A. 34:1B-129h.)", sheet=_ON),
    Item(
        f"The {REMOTE_WORK_TAX_YEAR} tax period ends",
        "Period2022End",
        Kind.DATE,
        "date",
        f"NJ_TAX_PERIOD_END({REMOTE_WORK_TAX_YEAR},FilerYearEndMonth,TaxYearNumbering)",
    ),
    Item(
        f"Tax credit for the {REMOTE_WORK_TAX_YEAR} tax period (its installments)",
        "Credit2022",
        MONEY,
        "$",
        f"[[at:CreditIssued:{_REMOTE_WORK_ROW}]]",
    ),
    Item(
        "Payment owed to the Authority (5% of that credit)",
        "RemoteWorkPayment",
        MONEY,
        "$",
        inputs.switch(_ELECTION, "NJ_BEIP_REMOTE_WORK_PAYMENT(Credit2022)", "0"),
    ),
    Item(
        "The election (OK, or every reason it fails)",
        "RemoteWorkVerdict",
        Kind.TEXT,
        "verdict",
        inputs.switch(
            _ELECTION,
            "NJ_BEIP_REMOTE_WORK_CHECK(ElectionDate,ShareAtFacility)",
            '"no election made"',
        ),
    ),
    Skip(sheet=_ON),
    Section(f"Remote-work waiver from {_C40} (P.L.2024, c.40)", sheet=_ON),
    Item(
        f"The waiver from {_C40} (OK, or every reason it fails)",
        "RemoteWorkC40Verdict",
        Kind.TEXT,
        "verdict",
        inputs.switch(
            _C40_WAIVER,
            f'NJ_BEIP_REMOTE_WORK_CHECK(ElectionDate,ShareAtFacilityC40,"emergency_ended",'
            f'"{_C40}",EnhancedArea,CommitmentEnd,"unchanged","",C40PaymentMade,'
            "C40CommitmentExtended)",
            '"no waiver claimed"',
        ),
    ),
    Item(
        "The commitment period, extended by two years, ends",
        "ExtendedCommitmentEnd",
        Kind.DATE,
        "date",
        inputs.switch(_C40_WAIVER, "NJ_BEIP_REMOTE_WORK_COMMITMENT_END(CommitmentEnd)", '""'),
    ),
    FormulaTable(
        (Column("Payment owed (non-refundable)", Kind.MONEY, "$", name="RemoteWorkC40Payments"),),
        tuple(
            (
                inputs.switch(
                    _C40_WAIVER,
                    f"NJ_BEIP_REMOTE_WORK_PAYMENT([[at:CreditIssued:{TAX_YEARS.index(year)}]],"
                    f"NJ_TAX_PERIOD_END({year},FilerYearEndMonth,TaxYearNumbering),"
                    'TaxYearNumbering,"containing","",EnhancedArea)',
                    "0",
                ),
            )
            for year in TAX_YEARS
            if year >= C40_FIRST_TAX_YEAR
        ),
        row_labels=tuple(f"Tax year {year}" for year in TAX_YEARS if year >= C40_FIRST_TAX_YEAR),
        label_header="Tax year",
        sheet=_ON,
    ),
    Item(
        f"Total payments owed from {_C40}",
        "RemoteWorkC40Total",
        MONEY,
        "$",
        _total("[[name:RemoteWorkC40Payments]]"),
        role="total",
    ),
)

#: Calculations, in order.
CALCULATION_ITEMS: tuple[LineItem, ...] = (
    Title(
        "Calculations",
        "Formulas only: every figure comes from the NJ_* functions.",
        sheet=_ON,
    ),
    Section("Approved amounts converted (a blank approved amount converts nothing)", sheet=_ON),
    FormulaTable(
        (Column("Amount converted", Kind.MONEY, "$", name="AmountsConverted"),),
        tuple(
            # a blank approved amount converts nothing (text or an error still reaches the
            # function, which rejects it with its message)
            ("IF(ISBLANK([[at:ApprovedAmounts:row]]),0,[[at:ApprovedAmounts:row]])",)
            for _ in ACCRUAL_YEARS
        ),
        row_labels=tuple(f"Accrued in {year}" for year in ACCRUAL_YEARS),
    ),
    Skip(sheet=_ON),
    *(_schedule(n, year) for n, year in enumerate(ACCRUAL_YEARS)),
    *(item for number in range(len(_CHUNKS)) for item in _matrix_block(number)),
    *APPLICATION,
    *RETURN_LINES,
    *TOTALS_TRANSFER_REMOTE_WORK,
)


# --------------------------------------------------------------------------- outputs


def _output(
    label: str,
    formula: str,
    kind: Kind = MONEY,
    unit: str = "$",
    source: str = "",
    name: str | None = None,
) -> Item:
    """A figure on Outputs, with where it goes on the return (or the law it comes from);
    ``name``: the output cell's own defined name, for a figure that is not a name itself
    (what ``calc --json`` calls it)."""
    return Item(label, name, kind, unit, formula, role="output", source=source, sheet=OUTPUTS)


#: Where a total goes: each tax year's own return (Calculations, "The return, per tax year").
_PER_YEAR = "each tax year's return (Calculations)"


OUTPUT_ITEMS: tuple[LineItem, ...] = (
    # the figures, where they go and the chart on one portrait page
    Title("Outputs", "Valid only when Checks!MasterCheck is TRUE.", sheet=OUTPUTS, landscape=False),
    SourceHeading("Where on the return (or in the law)", 48),
    _output("All checks pass", "MasterCheck", Kind.CHECK, "TRUE/FALSE", "the Checks sheet"),
    _output(
        "Total tax credit issued",
        "TotalCredit",
        source=f"{F.FORM_324_APPROVED.label(what=False)}, on {_PER_YEAR}",
    ),
    _output(
        "Total credit applied against the tax",
        "[[name:TotalApplied]]",
        source=f"{F.FORM_324_ALLOWABLE.label(what=False)} (the allowable credit); "
        f"{F.SCHEDULE_A3_BEIP.label()}, on {_PER_YEAR}",
    ),
    _output(
        "Total refunded as overpayments",
        "[[name:TotalRefund]]",
        source=f"{F.FORM_324_REFUND.label(what=False)} (the refund), on {_PER_YEAR}; "
        "N.J.S.A. 34:1B-129f.",
    ),
    _output(
        "Tax years with a credit",
        'COUNTIF([[name:CreditIssued]],">0")',
        Kind.COUNT,
        "years",
        name="TaxYearsWithCredit",
    ),
    _output("Transfer certificate: lowest lawful consideration", "TransferMinPrice"),
    _output("Transfer certificate: the proposed sale", "TransferVerdict", Kind.TEXT, "verdict"),
    _output("Remote-work election: payment owed", "RemoteWorkPayment"),
    _output("Remote-work election: conditions", "RemoteWorkVerdict", Kind.TEXT, "verdict"),
    _output(f"Remote-work waiver from {_C40}: payments owed", "RemoteWorkC40Total"),
    _output(
        f"Remote-work waiver from {_C40}: conditions", "RemoteWorkC40Verdict", Kind.TEXT, "verdict"
    ),
    Skip(sheet=OUTPUTS),
    Chart(
        "BEIP tax credit installments by tax year",
        "[[name:TaxYears]]",
        (
            ("Credit issued (installments)", "[[name:CreditIssued]]"),
            ("Credit applied against the tax", "[[data:Application:Credit applied]]"),
            ("Refund (overpayment)", "[[data:Application:Refund (overpayment)]]"),
        ),
        y_title="$",
        x_title="Tax year",
    ),
)


# --------------------------------------------------------------------------- checks

_APPLIED, _REFUND, _ISSUED = (
    "[[data:Application:Credit applied]]",
    "[[data:Application:Refund (overpayment)]]",
    "[[name:CreditIssued]]",
)


def _checks(read: Callable[[str], str]) -> tuple[Check, ...]:
    """The Checks sheet's lines, each input read by ``read``
    (:func:`nj_incentives.programs.template_inputs.reader`: as the NJ_* functions read it, so
    that
    an amount typed as text, "320,000.00", counts as the functions count it)."""
    amounts = read("ApprovedAmounts")
    # each liability as the input rule reads it (Calculations, "Tax liability": "1,000" is
    # 1000 and "$1,000.00" refused, as the functions read them): numbers compared, never
    # the text typed
    liabilities = "[[data:Application:Tax liability]]"
    return (
        Check(
            "Every approved amount is a number, or blank for none",
            f"COUNT({amounts})+COUNTBLANK(ApprovedAmounts)=ROWS(ApprovedAmounts)",
            "N.J.S.A. 34:1B-129e.",
        ),
        Check(
            "The matrix holds a number for every tax year and accrual year",
            "AND("
            + ",".join(
                f"COUNT([[name:{m}]])=ROWS([[name:{m}]])*COLUMNS([[name:{m}]])"
                for m in _BLOCK_NAMES
            )
            + ")",
        ),
        Check.equal(
            "The credits issued sum to the approved amounts (no installment falls outside "
            f"{TAX_YEARS[0]}-{TAX_YEARS[-1]})",
            "TotalCredit",
            f"SUM({amounts})",
            "N.J.S.A. 34:1B-129e.(1)-(13)",
        ),
        Check.numbers(
            "Credit applied and refund are numbers for every tax year",
            "[[columns:Application:Credit applied:Refund (overpayment)]]",
        ),
        Check(
            "Credit applied plus refund equals the credit issued, every tax year",
            f"SUMPRODUCT(--(ABS({_APPLIED}+{_REFUND}-{_ISSUED})>={CENT_TOLERANCE}))=0",
            "N.J.S.A. 34:1B-129f.",
        ),
        Check(
            "No tax year's credit applied exceeds its tax liability",
            # every liability read (a refused one fails here too, by its rule), and no
            # year's credit applied above the liability as read (a blank one: none)
            f'AND(SUMPRODUCT(--(LEFT({liabilities},7)="#VALUE!"))=0,'
            f"SUMPRODUCT(--ISNUMBER({liabilities}),"
            f"--({_APPLIED}-{CENT_TOLERANCE}>{liabilities}))=0)",
            "N.J.S.A. 34:1B-129f.",
        ),
        Check.equal(
            "Total applied plus total refunded equals the total credit issued",
            "[[name:TotalApplied]]+[[name:TotalRefund]]",
            "TotalCredit",
            "N.J.S.A. 34:1B-129f.",
        ),
        Check(
            "The proposed sale of the transfer certificate is lawful (or none is proposed)",
            f"OR(NOT({inputs.yes_or_open('TransferProposed', read('TransferProposed'))}),"
            'AND(TransferVerdict="OK",ISNUMBER(TransferMinPrice)))',
            "N.J.S.A. 34:1B-129g.(3)",
        ),
        Check(
            f"The remote-work election and the waiver from {_C40} meet h. (or none is claimed)",
            f"AND(OR(NOT({inputs.yes_or_open('RemoteWorkElection', read('RemoteWorkElection'))}),"
            'AND(RemoteWorkVerdict="OK",ISNUMBER(RemoteWorkPayment))),'
            f"OR(NOT({inputs.yes_or_open('RemoteWorkC40', read('RemoteWorkC40'))}),"
            'AND(RemoteWorkC40Verdict="OK",ISNUMBER(RemoteWorkC40Total))))',
            "N.J.S.A. 34:1B-129h., h.(1), h.(2); P.L.2024, c.40",
        ),
        Check(
            f"The {REMOTE_WORK_TAX_YEAR} credit the payment is based on is a number",
            "ISNUMBER(Credit2022)",
            "N.J.S.A. 34:1B-129h.(2)",
        ),
        calendar.fits_check("N.J.S.A. 34:1B-130, -131 a.; N.J.A.C. 19:31I-1.6"),
        calendar.past_due_check("N.J.S.A. 34:1B-131 a.; P.L.2024, c.40"),
        Check.numbers(
            "The Corporate Transit Fees entered are numbers (blank: none)",
            "[[name:TransitFees]]",
            transit_fee.CITE,
        ),
        transit_fee.check(
            [
                (
                    f"[[at:TransitFees:{k}]]",
                    f"[[at:TransitFeePeriodBegins:{k}]]",
                    f"tax year {year}",
                )
                for k, year in enumerate(TAX_YEARS)
            ]
        ),
        transit_fee.kind_check(
            [(f"[[at:TransitFees:{k}]]", f"tax year {year}") for k, year in enumerate(TAX_YEARS)],
            read,
        ),
    )


#: The return of a tax year: the row of "The return, per tax year" (the credit issued for
#: the year, the liability, the credit applied and the refund, N.J.S.A. 34:1B-129f.), each
#: on the line of the edition in force for that tax year; the Return sheet shows one year.
RETURN_SPEC = returns.ReturnSpec(
    TEMPLATE_ID,
    f"The return: {F.FORM_324.form} and {F.SCHEDULE_A3.form} (the edition in force for the "
    "tax year)",
    (
        returns.ReturnFigure(
            "Approved credit (the certificate)",
            "Form324ApprovedCredit",
            "Form 324",
            "approved",
            "N.J.S.A. 34:1B-129e.",
        ),
        returns.ReturnFigure(
            "Tax liability (the CBT before the Corporate Transit Fee)",
            "Form324TaxLiability",
            "Form 324",
            "liability",
            "N.J.S.A. 34:1B-129f.; P.L.2024, c.20",
            skippable=True,
        ),
        returns.ReturnFigure(
            "Allowable credit (applied)",
            "Form324AllowableCredit",
            "Form 324",
            "allowable",
            "N.J.S.A. 34:1B-129f.",
            skippable=True,
        ),
        returns.ReturnFigure(
            "Refund",
            "Form324Refund",
            "Form 324",
            "refund",
            "N.J.S.A. 34:1B-129f.",
            skippable=True,
        ),
        # the allowable credit of Part III again: not computed when Part III is skipped
        returns.ReturnFigure(
            "BEIP credit",
            "ScheduleA3BEIP",
            "Schedule A-3",
            "beip",
            "N.J.A.C. 18:7-3.17",
            skippable=True,
        ),
        transit_fee.figure("ReturnTransitFees"),
    ),
    years=TAX_YEARS,
    ends="ReturnPeriodEnds",
    default=f"MAX({TAX_YEARS[0]},SUMPRODUCT(MAX(ISNUMBER([[data:Application:Tax liability]])*"
    "(ROW([[data:Application:Tax liability]])-MIN(ROW([[data:Application:Tax liability]]))"
    f"+{TAX_YEARS[0]}))))",
    default_text="the last tax year with a tax liability entered (the engagement's latest "
    f"return; {TAX_YEARS[0]} if none)",
    notes=(
        f"{F.FORM_324_CERTIFICATE.label()}: the certificate of the tax year's credit. Other "
        "tax credits used and the liability less them (Part III) are not computed here: the "
        "credit is applied first, before all other credits (N.J.A.C. 18:7-3.17). A line 'to "
        "be confirmed' is not given by our sources for that edition (docs/interpretations.md, "
        "Form lines and their editions).",
    ),
    skip=returns.combined_filer_skip(
        "the Part III figures (the tax liability, the allowable credit, the refund) and the "
        "Schedule A-3 BEIP line (the allowable credit) are not computed for the return here; "
        "Part II line 3 (the approved credit) is as shown"
    ),
)


def return_block(read: Callable[[str], Any], tax_year: int) -> ReturnBlock | None:
    """Form 324 and Schedule A-3 for ``tax_year``, read from the cells the Return sheet
    reads (:data:`RETURN_SPEC`). None: not one of the template's tax years."""
    return returns.block(RETURN_SPEC, read, tax_year)


#: The Return sheet (its own printed page).
RETURN_ITEMS: tuple[LineItem, ...] = returns.sheet_items(RETURN_SPEC)

#: Inputs: the award's obligations (the Calendar sheet).
OBLIGATIONS: tuple[LineItem, ...] = (
    Skip(),
    Section("Compliance calendar (N.J.S.A. 34:1B-130, -131; N.J.A.C. 19:31I-1.6)"),
    Item(
        "Last day of grant year 1",
        "FirstYearEnd",
        Kind.DATE,
        "date",
        key="first_year_end",
        prompt="Grant year 1 ends",
        help="As the grant agreement sets the grant years; each later grant year ends 12 "
        "months later. The Calendar's reports, employment tests and commitment run from it; "
        "blank: no Calendar.",
    ),
    Item(
        "Term of the grant agreement",
        "Term",
        Kind.COUNT,
        "years",
        key="term",
        minimum=1,
        maximum=beip.MAXIMUM_TERM_YEARS,
        help="Grant years in the agreement, 1 to 10 (N.J.S.A. 34:1B-129c.): one annual report "
        "each, the commitment 1.5 times it.",
    ),
    Item(
        "Base Employment Number",
        "BaseEmployment",
        Kind.COUNT,
        "people",
        key="base_employment",
        help="As the agreement states it: at least 80% kept for the commitment duration "
        "(N.J.A.C. 19:31I-1.6(a)). Blank: the Calendar shows the test without its floor.",
    ),
    calendar.as_of_input(),
    InputTable(
        tuple(f"Grant year {n}" for n in range(1, beip.MAXIMUM_TERM_YEARS + 1)),
        (
            Column(
                "Annual report filed on",
                Kind.DATE,
                "date",
                name="ReportFiled",
                key="report_filed",
                help="The day the grant year's annual report was filed (due March 1 after "
                "the grant year, N.J.S.A. 34:1B-131 a.); blank if not filed.",
            ),
        ),
        label_header="Grant year",
    ),
)

#: The Calendar sheet: the award's obligations, past due as of ObligationsAsOf (the
#: commitment end and c.40's waiver and payments as the remote-work inputs give them).
CALENDAR_ITEMS = calendar.calendar_sheet(
    'NJ_AWARD_CALENDAR("beip",FirstYearEnd,Term,CommitmentEnd,RemoteWorkC40,BaseEmployment,"",'
    'ObligationsAsOf,"",ReportFiled,C40PaymentMade)',
    rows=37,
    program="beip",
    citation="N.J.S.A. 34:1B-130, -131 a.; N.J.A.C. 19:31I-1.6",
    when="FirstYearEnd",
)

_BEFORE_CHECKS: tuple[LineItem, ...] = (
    *FILER,
    *BY_YEAR,
    *CREDIT_MINIMUM,
    *TRANSFER_AND_REMOTE_WORK,
    *OBLIGATIONS,
    *CALCULATION_ITEMS,
    *OUTPUT_ITEMS,
    *RETURN_ITEMS,
    *CALENDAR_ITEMS,
)
#: The inputs as the functions read them (each rule as ``fill`` has it: the same items).
_READ = inputs.reader((*_BEFORE_CHECKS, *_checks(str)))
#: The Checks sheet's lines: each input as the functions read it, then the template's.
CHECKS: tuple[LineItem, ...] = (
    *inputs.input_checks((*_BEFORE_CHECKS, *_checks(str))),
    *_checks(_READ),
)


#: The whole template, in the order the builder lays it out.
TEMPLATE: tuple[LineItem, ...] = (
    *FILER,
    *BY_YEAR,
    *CREDIT_MINIMUM,
    *TRANSFER_AND_REMOTE_WORK,
    *OBLIGATIONS,
    *CALCULATION_ITEMS,
    *OUTPUT_ITEMS,
    *RETURN_ITEMS,
    *CALENDAR_ITEMS,
    *CHECKS,
)


# --------------------------------------------------------------------------- roll forward


def _remote_work_runs(values: Mapping[str, object], names: Mapping[str, object]) -> list[int]:
    """The tax years the remote-work rules still reach (N.J.S.A. 34:1B-129h.; P.L.2024,
    c.40): the last with a payment owed, and the one whose period holds the end of the
    commitment (extended by the waiver, else as entered) when the election or the waiver
    is OK; a workpaper rolls forward through them after its last installment."""
    from nj_incentives.core.cells import date_from_serial

    found: list[int] = []
    payments = column_values(names.get("RemoteWorkC40Payments"))
    c40_years = [year for year in TAX_YEARS if year >= C40_FIRST_TAX_YEAR]
    found += [
        year
        for year, amount in zip(c40_years, payments, strict=False)
        if isinstance(amount, (int, float)) and amount > 0
    ]
    verdicts = [names.get(name) for name in ("RemoteWorkVerdict", "RemoteWorkC40Verdict")]
    if "OK" in verdicts:
        end = names.get("ExtendedCommitmentEnd")
        if not isinstance(end, (int, float)):
            end = values.get("CommitmentEnd")
        day = date_from_serial(float(end)) if isinstance(end, (int, float)) else end
        if isinstance(day, dt.date):
            month = values.get("FilerYearEndMonth") or 12
            numbering = str(values.get("TaxYearNumbering") or "form")
            found += [
                next(
                    (
                        year
                        for year in TAX_YEARS
                        if cbt.period_end_for(year, month, numbering) >= day  # type: ignore[arg-type]
                    ),
                    TAX_YEARS[-1],
                )
            ]
    return found


def _roll(values: dict[str, object], last: Last) -> RolledPeriod:
    """The next tax year: last year's refund becomes the refundable credit of its
    transfer certificate; refused after the last installment."""
    from nj_incentives.core.cells import date_from_serial
    from nj_incentives.programs.remote_work import rules as remote_work

    where, refers, names = last.where, last.refers, last.names
    liabilities = list(values.get("TaxLiabilities") or [])  # type: ignore[call-overload]
    row = last_row(liabilities)
    named = named_period(
        values, r"tax years? (\d{4})(?:\s*(?:-|to)\s*(\d{4}))?", r"(?<!\d)(\d{4})(?!\d)"
    )
    if named and int(named) in TAX_YEARS and 0 < TAX_YEARS.index(int(named)) + 1 <= row:
        row = TAX_YEARS.index(int(named)) + 1
    ref = refers.get("TAXLIABILITIES", "TaxLiabilities")
    if row == 0:
        raise RollRefused(
            f"{where} {ref}: no tax year has a tax liability yet: nothing to roll forward "
            f"from (fill the first, tax year {TAX_YEARS[0]})"
        )
    year = TAX_YEARS[row - 1]
    issued = column_values(names.get("CreditIssued"))
    law_last = max(p.first_tax_year + len(p.shares) - 1 for p in beip.CONVERSION_PARAGRAPHS)
    with_credit = [
        TAX_YEARS[n]
        for n, v in enumerate(issued[: len(TAX_YEARS)])
        if isinstance(v, (int, float)) and v > 0
    ]
    running = _remote_work_runs(values, names)
    final = max([law_last, *with_credit, *running])
    if year + 1 > final or row + 1 > len(TAX_YEARS):
        paragraph = beip.CONVERSION_PARAGRAPHS[-1]
        raise RollRefused(
            f"{where} {row_cell(ref, row)} (TaxLiabilities, tax year {year}): tax year "
            f"{year + 1} is past the last tax year a converted credit "
            f"is issued for: {law_last} (grants accrued in {paragraph.accrual_years.start}, the "
            f"last accrual year, are issued in the {paragraph.first_tax_year} tax period, "
            f"{paragraph.citation})"
            + (
                f"; this workbook's last installment is in {max(with_credit)}"
                if with_credit
                else ""
            )
            + (
                f"; its remote-work payments and commitment run to tax year {max(running)}"
                if running
                else "; no remote-work payment or commitment runs past it"
            )
            + "; nothing to roll forward to"
        )
    carried = []
    refunds = column_values(names.get("CreditRefund"))
    ends = column_values(names.get("ReturnPeriodEnds"))
    refund = refunds[row - 1] if row <= len(refunds) else None
    end = ends[row - 1] if row <= len(ends) else None
    period_end = date_from_serial(float(end)) if isinstance(end, (int, float)) else None
    if isinstance(refund, (int, float)) and refund > 0:
        values["CertificateAmount"] = round(float(refund), 2)
        carried.append(
            f"CertificateAmount = {money(refund)}: the refund of tax year {year}, the credit "
            f"over its liability ({beip.CITE_F}) a transfer certificate is issued for "
            f"({beip.SECTION}g.(2))"
        )
    else:
        values["CertificateAmount"] = None
        carried.append(f"CertificateAmount blank: tax year {year} has no refund ({beip.CITE_F})")
    values["CreditPeriodEnd"] = period_end
    carried.append(
        f"CreditPeriodEnd = {period_end}: the end of tax year {year}, the only period its "
        f"credit applies in ({beip.CITE_E})"
    )
    sale = ("TransferAmount", "Consideration", "SaleDate")
    for name in (*sale, "CreditExceedsLiability", "BuyerMayOweTax"):
        values[name] = None
    values["TransferProposed"] = "No"
    carried.append(
        "TransferProposed = No, TransferAmount, Consideration, SaleDate, "
        "CreditExceedsLiability and BuyerMayOweTax cleared: last year's proposal was for "
        f"last year's certificate, credit and buyer ({beip.CITE_G3}; g.(2)); SellerPaysTax "
        "kept as entered"
    )
    verdicts = [
        f"{name} {names.get(name)!r}"
        for name in ("RemoteWorkVerdict", "RemoteWorkC40Verdict")
        if names.get(name) is not None
    ]
    carried.append(
        f"the remote-work election and the waiver from {H.c40_from.single} kept "
        "as entered (last year: "
        + ", ".join(verdicts)
        + f"; the election is made once, {remote_work.CITE_H}; the waiver is for every later tax "
        "period, P.L.2024, c.40)"
    )
    certificate = values["CertificateAmount"]
    figures = (
        CarriedFigure(
            "CertificateAmount",
            certificate if isinstance(certificate, (int, float)) else None,
            "$",
            f"tax year {year}",
        ),
        CarriedFigure(
            "CreditPeriodEnd",
            period_end.isoformat() if period_end else None,
            "date",
            f"tax year {year}",
        ),
    )
    return RolledPeriod(f"tax year {year}", f"tax year {year + 1}", carried, row + 1, figures)


def _engagement_period(values: Mapping[str, object], current: str) -> str:
    return f"Tax year {current} (tax years {TAX_YEARS[0]}-{current})"


#: The conversion's next tax year (``nj-incentives rollforward``).
ROLL_FORWARD = RollForward(
    carried=(
        ("CreditRefund (the last tax year)", "CertificateAmount", "N.J.S.A. 34:1B-129f., g.(2)"),
        ("ReturnPeriodEnds (the last tax year)", "CreditPeriodEnd", "N.J.S.A. 34:1B-129e."),
        ("(a new proposal)", "TransferProposed = No; sale cleared", "N.J.S.A. 34:1B-129e., g.(3)"),
        ("RemoteWorkVerdict, RemoteWorkC40Verdict", "(the election kept)", "h.; P.L.2024, c.40"),
    ),
    new_period=("TaxLiabilities",),
    roll=_roll,
    engagement_period=_engagement_period,
)


# --------------------------------------------------------------------------- the return


#: The return of a tax year (:data:`nj_incentives.core.workpaper.ReturnOf`).
RETURN = return_block
