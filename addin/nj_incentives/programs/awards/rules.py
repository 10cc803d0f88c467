"""Each award's compliance calendar and its recapture exposure (issue 33, items 2-3;
shared/legal-notes.md section 6.2). The figures are each program's
(``programs/<key>/figures.py``); an amount the Authority decides (how much it recaptures
"at its discretion") is an input, so the exposure is the amount at risk, not a verdict.

Programs: ``beip`` (N.J.S.A. 34:1B-130, -131; N.J.A.C. 19:31I-1.6), ``brrag`` (34:1B-120
a., -120.1), ``uth`` (N.J.A.C. 19:31H-1.12; its 120-day report secondary) and ``grow_nj``
(N.J.A.C. 19:31Q-1.10, -1.11, -1.15). Every reading: docs/interpretations.md, "Award
obligations: the compliance calendar" and "Recapture exposure".
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from decimal import Decimal

from pydantic import BaseModel, ConfigDict

from nj_incentives.core.common import (
    DateLike,
    Explained,
    InputError,
    Number,
    Step,
    as_bool,
    as_choice,
    as_date,
    as_fraction,
    as_int,
    as_money,
    cents_down,
    fmt_money,
    fmt_pct,
)
from nj_incentives.core.inputs import as_number, percent_text
from nj_incentives.core.rules import EXACT
from nj_incentives.programs.beip import figures as BEIP
from nj_incentives.programs.beip import rules as BEIP_RULES
from nj_incentives.programs.brrag import figures as BRRAG
from nj_incentives.programs.cbt import rules as cbt
from nj_incentives.programs.grow_nj import figures as GROW
from nj_incentives.programs.remote_work import rules as remote_work
from nj_incentives.programs.uth import figures as UTH

__all__ = [
    "CITE_AWARDS",
    "PROGRAMS",
    "SECONDARY_READINGS",
    "AwardCalendar",
    "Exposure",
    "ExposureYear",
    "Obligation",
    "award_calendar",
    "recapture_exposure",
]

#: The programs whose awards have a calendar, and what each is called.
PROGRAMS = {
    "beip": "BEIP",
    "brrag": "BRRAG",
    "uth": "Urban Transit Hub",
    "grow_nj": "Grow NJ",
}
CITE_AWARDS = (
    "N.J.S.A. 34:1B-130, -131 (BEIP); 34:1B-120 (BRRAG); N.J.A.C. 19:31H-1.12 (UTH);"
    " N.J.A.C. 19:31Q-1.10, -1.11, -1.15 (Grow NJ)"
)
#: Something to do by its day (a report, a certificate, a payment, a request), which can be
#: past due; every other kind (employment, the commitment) is a continuing test whose day
#: passing is its period's end ("ended"), not an omission.
TO_DO = ("report", "payment", "request")
#: A row's status: a thing to do "past due" (its day before ``as_of``, not done), "filed" /
#: "paid" (done by its day), "filed late" (done after it), "open" (its day not passed); a
#: continuing test "ended" or "open".
STATUSES = ("past due", "filed late", "filed", "paid", "open", "ended")

#: ``secondary``: rows resting on a secondary figure (UTH's 120-day report) shown
#: ("assumed", default) or left out ("omit").
SECONDARY_READINGS = ("assumed", "omit")

CITE_BEIP_REPORT = "N.J.S.A. 34:1B-131 a."
CITE_BEIP_STAY = "N.J.S.A. 34:1B-130 d., k."
CITE_BEIP_EMPLOYMENT = "N.J.A.C. 19:31I-1.6(a), (b)"
CITE_BRRAG_CERTIFICATE = "N.J.S.A. 34:1B-120 a.; N.J.A.C. 19:31M-1.13(b)"
CITE_BRRAG_RECAPTURE = "N.J.S.A. 34:1B-120.1"
CITE_GROW_REPORT = "N.J.A.C. 19:31Q-1.11(a)1"
CITE_GROW_STATEWIDE = "N.J.A.C. 19:31Q-1.15(a)"
CITE_GROW_COMMITMENT = "N.J.A.C. 19:31Q-1.10(b)3; N.J.S.A. 34:1B-245 d. (P.L.2011, c.149)"
CITE_UTH_REPORT = "NJEDA release of 2020-04-13 (secondary; N.J.A.C. 19:31H-1 not read)"
CITE_UTH_REDUCTION = "N.J.A.C. 19:31H-1.12(a), (b)"

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class Obligation(BaseModel):
    """One dated obligation of an award."""

    model_config = ConfigDict(frozen=True)

    #: the day it is due (or, for a continuing obligation, the last day of the year it covers)
    due: dt.date
    #: "report", "employment", "commitment", "payment", "request"
    kind: str
    obligation: str
    #: the grant year or tax year it concerns (None: the award as a whole)
    year: int | None
    consequence: str
    citation: str
    #: what the rule and the notes say of a due date on a weekend, a secondary source ...
    note: str = ""
    #: against ``as_of`` and what was done (:data:`STATUSES`); "" when neither is given
    status: str = ""


class AwardCalendar(Explained):
    """Every dated obligation of one award, by date."""

    program: str
    rows: tuple[Obligation, ...]
    commitment_end: dt.date
    #: the commitment period extended by P.L.2024, c.40 (None: no waiver kept)
    extended_commitment_end: dt.date | None = None

    @property
    def past_due(self) -> tuple[Obligation, ...]:
        return tuple(row for row in self.rows if row.status == "past due")


def _program(value: object) -> str:
    return as_choice(value, "program", tuple(PROGRAMS), CITE_AWARDS)


def _filed(
    filed: Sequence[DateLike | None] | DateLike | None, ends: Sequence[dt.date]
) -> dict[int, dt.date]:
    """The day each period's report was filed, by the period's year (its row's Year)."""
    if filed is None:
        return {}
    given = (
        list(filed)
        if isinstance(filed, Sequence) and not isinstance(filed, (str, bytes))
        else [filed]
    )
    found: dict[int, dt.date] = {}
    for index, value in enumerate(given):
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        if index >= len(ends):
            rule = f"gives a date for period {index + 1}: the term has {len(ends)}"
            raise InputError("filed", value, rule, CITE_AWARDS)
        end = ends[index]
        day = as_date(value, "filed", CITE_AWARDS)
        if day <= end:
            rule = f"is on or before the end of the period it reports on ({end})"
            raise InputError("filed", value, rule, CITE_AWARDS)
        found[end.year] = day
    return found


def _weekend_note(due: dt.date, rule: str) -> str:
    """What the rule and the notes give for a due date on a weekend: nothing moves it."""
    if due.weekday() < 5:
        return ""
    return (
        f"{due} is a {_WEEKDAYS[due.weekday()]}: neither {rule} nor the notes move it, so it"
        " stays; file by the business day before (no rule read says the next one is in time)"
    )


def _months_later(day: dt.date, months: int) -> dt.date:
    result: dt.date = EXACT.add_months(day, months)
    return result


def _period_ends(first_end: dt.date, years: int) -> list[dt.date]:
    """The last days of ``years`` successive 12-month periods, the first ending
    ``first_end`` (a month end stays a month end)."""
    return [_months_later(first_end, 12 * k) for k in range(years)]


def award_calendar(
    program: str,
    first_period_end: DateLike,
    years: Number,
    commitment_end: DateLike | None = None,
    c40_waiver: bool | int | str | None = None,
    base_employment: Number | None = None,
    statewide_base: Number | None = None,
    as_of: DateLike | None = None,
    secondary: str = "assumed",
    filed: Sequence[DateLike | None] | DateLike | None = None,
    payments_made: bool | int | str | None = None,
) -> AwardCalendar:
    """The dated obligations of an award of ``program`` whose first grant year or credit
    period ends ``first_period_end`` and runs ``years`` years (the term, the eligibility
    period), by date.

    - BEIP: the annual report for each grant year by March 1 of the next year, without
      which that year's grant is forfeited (34:1B-131 a.); at least 80% of the Base
      Employment Number (``base_employment``) each year of the commitment (N.J.A.C.
      19:31I-1.6); the project kept in New Jersey 1.5 times the term (34:1B-130 d., k.).
    - BRRAG: the annual certificate of compliance by March 1 of each year for the
      remainder of the commitment duration (34:1B-120 a.; ``commitment_end`` required).
    - Grow NJ: the annual report within 120 days after each tax period (N.J.A.C.
      19:31Q-1.11(a)1), late: that period's credit forfeited; the Statewide full-time
      employees not more than 20% below the last period before approval
      (``statewide_base``; 19:31Q-1.15(a)); the commitment period, 1.5 times the term of
      the credits (34:1B-245 d.; 19:31Q-1.10(b)3).
    - UTH: the annual report 120 days after each period (secondary: ``secondary="omit"``
      leaves it out); fewer than 200 new full-time positions reduce the credit 20%, the
      Statewide workforce down more than 20% forfeits it (19:31H-1.12); the commitment
      end is an input (not found).

    ``commitment_end``: the agreement's last day of the commitment; blank for BEIP and Grow
    NJ: 1.5 times ``years`` from the first day of the first period (a reading). With
    ``c40_waiver`` TRUE, P.L.2024, c.40's two-year extension and the 10% payment for each
    tax period from April 1, 2024 within the credits' years (its due date is not in the
    notes). ``as_of``: a report, certificate or payment due before it and not done is
    "past due" (a continuing test whose day passed: "ended"). ``filed``: the day each
    period's report (BRRAG: the certificate for the period's calendar year) was filed, one
    per period of ``years`` (blank: not filed): "filed", or "filed late" after its day.
    ``payments_made``: TRUE when c.40's payments are made ("paid").
    """
    key = _program(program)
    name = PROGRAMS[key]
    first_end = as_date(first_period_end, "first_period_end", CITE_AWARDS)
    count = as_int(
        years,
        "years",
        CITE_AWARDS,
        low=1,
        high=20,
        rule="must be the years of the term or eligibility period, 1 to 20",
    )
    reading = as_choice(secondary, "secondary", SECONDARY_READINGS, CITE_UTH_REPORT)
    waiver = (
        False if c40_waiver is None else as_bool(c40_waiver, "c40_waiver", remote_work.CITE_H_C40)
    )
    today = None if as_of is None else as_date(as_of, "as_of", CITE_AWARDS)
    # read when given, whichever program uses it: a bad value is never ignored
    employment_base = (
        None
        if base_employment is None
        else as_int(base_employment, "base_employment", CITE_BEIP_EMPLOYMENT, low=0)
    )
    statewide_floor = (
        None
        if statewide_base is None
        else as_int(
            statewide_base,
            "statewide_base",
            CITE_GROW_STATEWIDE if key == "grow_nj" else CITE_UTH_REDUCTION,
            low=0,
        )
    )
    ends = _period_ends(first_end, count)
    filed_on = _filed(filed, ends)
    paid = (
        False
        if payments_made is None
        else as_bool(payments_made, "payments_made", remote_work.CITE_H_C40)
    )
    first_start = _months_later(first_end, -12) + dt.timedelta(days=1)
    steps: list[Step] = []
    rows: list[Obligation] = []

    # the commitment
    if commitment_end is not None:
        end = as_date(commitment_end, "commitment_end", CITE_AWARDS)
        steps.append(
            Step(label="Commitment ends (the agreement's)", value=end, citation=CITE_AWARDS)
        )
    elif key in ("beip", "grow_nj"):
        figure = BEIP.COMMITMENT_MULTIPLE if key == "beip" else GROW.COMMITMENT_MULTIPLE
        multiple = figure.at(first_start)
        months = int(multiple * 12 * count)
        end = _months_later(first_start, months) - dt.timedelta(days=1)
        cite = CITE_BEIP_STAY if key == "beip" else CITE_GROW_COMMITMENT
        steps.append(
            Step(
                label="Commitment ends (1.5 times the term, from its first day)",
                value=end,
                arithmetic=f"{first_start} + {multiple} x {count} years ({months} months) - 1 day"
                f" = {end}",
                citation=cite,
            )
        )
    else:
        rule = (
            f"is required for {name}: the commitment duration is the agreement's"
            f" ({CITE_BRRAG_CERTIFICATE if key == 'brrag' else 'N.J.S.A. 34:1B-209: not found'})"
        )
        raise InputError("commitment_end", None, rule, CITE_AWARDS)
    if end < ends[-1]:
        rule = (
            f"is before the end of the last period ({ends[-1]}): a commitment outlasts the credits"
        )
        raise InputError("commitment_end", commitment_end, rule, CITE_AWARDS)
    extended = None
    if waiver:
        extended = remote_work.remote_work_commitment_end(end, program=key).extended_end
    last = extended or end

    def add(
        due: dt.date,
        kind: str,
        text: str,
        year: int | None,
        consequence: str,
        cite: str,
        note: str = "",
    ) -> None:
        done = filed_on.get(year) if kind == "report" and year is not None else None
        status = ""
        if done is not None:
            status = "filed" if done <= due else "filed late"
        elif kind == "payment" and paid:
            status = "paid"
        elif today is not None and due < today:
            status = "past due" if kind in TO_DO else "ended"
        elif today is not None:
            status = "open"
        rows.append(
            Obligation(
                due=due,
                kind=kind,
                obligation=text,
                year=year,
                consequence=consequence,
                citation=cite,
                note=note,
                status=status,
            )
        )

    if key == "beip":
        month, day = BEIP.ANNUAL_REPORT_DUE.at()
        share = BEIP.BASE_EMPLOYMENT_SHARE.at(first_start)
        for period_end in ends:
            due = dt.date(period_end.year + 1, month, day)
            add(
                due,
                "report",
                f"Annual report for grant year {period_end.year}: the NJ tax return (within 30"
                " days of filing) and the annual payroll report",
                period_end.year,
                f"without it the grant payment for {period_end.year} is forfeited (unless the"
                " Executive Director finds extenuating circumstances)",
                CITE_BEIP_REPORT,
                _weekend_note(due, CITE_BEIP_REPORT),
            )
        year_end = dt.date(first_start.year, 12, 31)
        while year_end <= last:
            floor = ""
            if employment_base is not None:
                base = employment_base
                kept = cents_down(Decimal(base) * share)
                floor = f" ({fmt_pct(share)} x {base} = {kept}: {math.ceil(kept)} employees)"
            add(
                year_end,
                "employment",
                f"Keep the project, the minimum eligible positions and at least {fmt_pct(share)}"
                f" of the Base Employment Number{floor} through {year_end.year}",
                year_end.year,
                "a breach of the agreement: the Authority may recapture all or part of the"
                " grants at its discretion (the amount at risk: NJ_RECAPTURE_EXPOSURE)",
                f"{CITE_BEIP_EMPLOYMENT}; {CITE_BEIP_STAY}",
            )
            year_end = dt.date(year_end.year + 1, 12, 31)
    elif key == "brrag":
        month, day = BRRAG.ANNUAL_CERTIFICATE_DUE.at()
        due = dt.date(first_end.year + 1, month, day)
        while due <= _months_later(last, 12):
            add(
                due,
                "report",
                f"Annual certificate of compliance (retained jobs of {due.year - 1}: the average"
                " of the monthly averages of that calendar year)",
                due.year - 1,
                "fewer retained jobs than the agreement reduce that period's credit"
                " proportionately, the difference forfeited",
                CITE_BRRAG_CERTIFICATE,
                _weekend_note(due, "N.J.S.A. 34:1B-120 a."),
            )
            due = dt.date(due.year + 1, month, day)
    else:
        days_figure = GROW.ANNUAL_REPORT_DAYS if key == "grow_nj" else UTH.ANNUAL_REPORT_DAYS
        reduction = GROW.STATEWIDE_REDUCTION if key == "grow_nj" else UTH.STATEWIDE_REDUCTION
        report_cite = CITE_GROW_REPORT if key == "grow_nj" else CITE_UTH_REPORT
        statewide_cite = CITE_GROW_STATEWIDE if key == "grow_nj" else CITE_UTH_REDUCTION
        for period_end in ends:
            days = days_figure.at(period_end)
            if key == "grow_nj" or reading == "assumed":
                due = period_end + dt.timedelta(days=days)
                note = _weekend_note(due, report_cite)
                if key == "uth":
                    note = (
                        "secondary: an NJEDA release citing existing rules (switch"
                        " secondary)" + ("; " + note if note else "")
                    )
                add(
                    due,
                    "report",
                    f"Annual report for the tax period ending {period_end} (CPA certification of"
                    f" the full-time employees and the Statewide workforce), {days} days after"
                    " the period",
                    period_end.year,
                    "filed late: that period's credit is forfeited (absent extenuating"
                    " circumstances and written approval)",
                    report_cite,
                    note,
                )
            limit = fmt_pct(reduction.at(period_end))
            floor = ""
            if statewide_floor is not None:
                base = statewide_floor
                least = Decimal(base) * (1 - reduction.at(period_end))
                floor = f" (at least {least.normalize():f} of {base})"
            text = (
                f"Statewide full-time employees not more than {limit} below the last tax"
                f" period before approval{floor}"
            )
            if key == "uth":
                text += (
                    f"; at least {UTH.FEWEST_NEW_POSITIONS.at(period_end)} full-time"
                    " employees in new full-time positions"
                )
            add(
                period_end,
                "employment",
                text,
                period_end.year,
                "more than the reduction: that period's credit and later ones forfeited until"
                " restoration is approved"
                + (
                    "; fewer new positions: the annual credit reduced"
                    f" {fmt_pct(UTH.REDUCTION_SHARE.at(period_end))}"
                    if key == "uth"
                    else ""
                ),
                statewide_cite,
            )
    add(
        end,
        "commitment",
        f"End of the commitment period: the project kept in New Jersey with its employees"
        f" until {end}",
        None,
        "leaving earlier: recapture of all or part of the award at the Authority's discretion",
        {
            "beip": CITE_BEIP_STAY,
            "grow_nj": CITE_GROW_COMMITMENT,
            "brrag": CITE_BRRAG_RECAPTURE,
            "uth": "the incentive agreement (N.J.S.A. 34:1B-209)",
        }[key],
    )
    if waiver:
        h = remote_work.law(key)
        assert extended is not None
        add(
            extended,
            "commitment",
            f"End of the commitment period extended by two years for the remote-work waiver"
            f" from {h.c40_from}",
            None,
            "the extension is a condition of the waiver (P.L.2024, c.40)",
            h.cite_c40,
        )
        payment_periods = ends
        if key == "beip":
            # BEIP's credits are the converted installments (e.(1)-(13)), through the last
            # installment's tax year: the periods of the filer's year end in those years
            last_year = max(
                p.first_tax_year + len(p.shares) - 1 for p in BEIP_RULES.CONVERSION_PARAGRAPHS
            )
            payment_periods = [
                day
                for day in (
                    _months_later(first_end, 12 * (year - first_end.year))
                    for year in range(h.c40_from.year, last_year + 2)
                )
                if cbt.tax_year_number(day) <= last_year
            ]
        for period_end in payment_periods:
            if period_end >= h.c40_from:
                add(
                    period_end,
                    "payment",
                    f"Non-refundable payment of {fmt_pct(h.c40_payment_share)} of the maximum tax"
                    f" credit for the tax period ending {period_end} (NJ_REMOTE_WORK_PAYMENT)",
                    period_end.year,
                    "without it no waiver for the period: the 60% on-site requirement applies",
                    h.cite_c40,
                    "the notes give no due date for the payment: the period's end is shown",
                )
    rows.sort(key=lambda row: (row.due, row.kind))
    return AwardCalendar(
        program=key,
        rows=tuple(rows),
        commitment_end=end,
        extended_commitment_end=extended,
        steps=steps,
    )


# =========================================================================== exposure


class ExposureYear(BaseModel):
    """One year of an award's recapture exposure."""

    model_config = ConfigDict(frozen=True)

    year: int
    credit: Decimal
    cumulative: Decimal
    #: forfeited if the year's report is missing or late (that year's credit or grant)
    report_forfeiture: Decimal
    #: reduced for the year's employment shortfall (BRRAG's proportional reduction, UTH's
    #: 20%; 0 where not given)
    employment_reduction: Decimal
    #: the amount at risk if the commitment fails in the year: the credits taken so far x
    #: the recapture share, plus interest and penalties where given
    at_risk: Decimal
    citation: str


class Exposure(Explained):
    program: str
    rows: tuple[ExposureYear, ...]
    recapture_share: Decimal
    total_at_risk: Decimal


def _amounts(values: Sequence[object], argument: str, cite: str) -> list[Decimal]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        return [as_money(values, argument, cite)]
    return [as_money(value, argument, cite) for value in values]


def recapture_exposure(
    program: str,
    first_year: Number,
    credits: Sequence[Number] | Number,
    recapture_share: Number = 1,
    interest: Number = 0,
    penalties: Number = 0,
    agreed_jobs: Number | None = None,
    actual_jobs: Sequence[Number] | Number | None = None,
) -> Exposure:
    """The amount at risk by year for an award of ``program`` whose credits (BEIP: grants)
    taken in successive years from ``first_year`` are ``credits``.

    - Each year's report: that year's credit is forfeited without it (BEIP 34:1B-131 a.;
      Grow NJ 19:31Q-1.11(a)1; UTH, secondary; BRRAG: the certificate, 34:1B-120 a.).
    - The employment test of the year, where the jobs are given: BRRAG, fewer retained
      jobs than ``agreed_jobs`` reduce the year's credit proportionately (the credit x
      the shortfall / the agreed jobs, rounded down: 34:1B-120 a.); UTH, fewer than 200
      new full-time positions reduce it 20% (19:31H-1.12(a)).
    - The commitment: the Authority may recapture "all or part" at its discretion (BEIP
      34:1B-130 k.; Grow NJ 19:31Q-1.10(b)3, with interest at the deficiency rate,
      penalties and costs; BRRAG on the proportionate value, 34:1B-120.1): the amount at
      risk is the credits taken so far x ``recapture_share`` (the Authority's decision,
      an input; 1 = all), plus ``interest`` and ``penalties`` (inputs, as the rule gives
      them only by reference to the tax law).
    """
    key = _program(program)
    cite = {
        "beip": f"{CITE_BEIP_REPORT}; {CITE_BEIP_STAY}",
        "brrag": f"{CITE_BRRAG_CERTIFICATE}; {CITE_BRRAG_RECAPTURE}",
        "uth": f"{CITE_UTH_REDUCTION}; {CITE_UTH_REPORT}",
        "grow_nj": f"{CITE_GROW_REPORT}; {CITE_GROW_STATEWIDE}; {CITE_GROW_COMMITMENT}",
    }[key]
    start = as_int(first_year, "first_year", cite, low=1990, high=2100)
    amounts = _amounts(credits, "credits", cite)  # type: ignore[arg-type]
    percent = percent_text(recapture_share, "recapture_share", cite)
    number = as_number(recapture_share, "recapture_share", cite) if percent is None else percent
    if number > 1:
        rule = (
            "must be at most 100% (a fraction, 1 = all): the Authority recaptures all or part"
            " of the credits taken, never more"
        )
        raise InputError("recapture_share", recapture_share, rule, cite)
    share = as_fraction(recapture_share, "recapture_share", cite)
    extra = as_money(interest, "interest", cite) + as_money(penalties, "penalties", cite)
    jobs: list[int | None] = [None] * len(amounts)
    # read when given, whatever else is: a bad value is never ignored
    agreed = (
        None
        if agreed_jobs is None
        else as_int(agreed_jobs, "agreed_jobs", CITE_BRRAG_CERTIFICATE, low=1)
    )
    if actual_jobs is not None:
        if key not in ("brrag", "uth"):
            rule = "is read for BRRAG (retained jobs) and UTH (new full-time positions) only"
            raise InputError("actual_jobs", actual_jobs, rule, cite)
        given_jobs = (
            list(actual_jobs)
            if isinstance(actual_jobs, Sequence) and not isinstance(actual_jobs, str)
            else [actual_jobs]
        )
        if len(given_jobs) != len(amounts):
            rule = f"must give one number a year, as credits does ({len(amounts)})"
            raise InputError("actual_jobs", actual_jobs, rule, cite)
        jobs = [as_int(j, "actual_jobs", cite, low=0) for j in given_jobs]
        if key == "brrag" and agreed is None:
            raise InputError("agreed_jobs", None, "is required with BRRAG's actual_jobs", cite)
    rows: list[ExposureYear] = []
    steps: list[Step] = []
    cumulative = Decimal("0.00")
    for index, credit in enumerate(amounts):
        year = start + index
        cumulative += credit
        reduction = Decimal("0.00")
        worked = jobs[index]
        fewest = UTH.FEWEST_NEW_POSITIONS.at(dt.date(year, 12, 31))
        if worked is not None and key == "brrag" and agreed is not None and worked < agreed:
            reduction = cents_down(credit * Decimal(agreed - worked) / Decimal(agreed))
            steps.append(
                Step(
                    label=f"{year}: retained jobs short of the agreement",
                    value=reduction,
                    arithmetic=f"{fmt_money(credit)} x ({agreed} - {worked}) / {agreed} ="
                    f" {fmt_money(reduction)} forfeited",
                    citation=CITE_BRRAG_CERTIFICATE,
                )
            )
        elif (
            worked is not None
            and key == "uth"
            and worked < UTH.FEWEST_NEW_POSITIONS.at(dt.date(year, 12, 31))
        ):
            rate = UTH.REDUCTION_SHARE.at(dt.date(year, 12, 31))
            reduction = EXACT.share(credit, rate)
            steps.append(
                Step(
                    label=f"{year}: fewer than {fewest} new positions",
                    value=reduction,
                    arithmetic=f"{fmt_money(credit)} x {fmt_pct(rate)} = {fmt_money(reduction)}",
                    citation=CITE_UTH_REDUCTION,
                )
            )
        at_risk = EXACT.share(cumulative, share) + extra
        steps.append(
            Step(
                label=f"{year}: at risk if the commitment fails",
                value=at_risk,
                arithmetic=f"{fmt_money(cumulative)} taken so far x {fmt_pct(share)}"
                + (f" + {fmt_money(extra)} interest and penalties" if extra else "")
                + f" = {fmt_money(at_risk)}",
                citation=cite,
            )
        )
        rows.append(
            ExposureYear(
                year=year,
                credit=credit,
                cumulative=cumulative,
                report_forfeiture=credit,
                employment_reduction=reduction,
                at_risk=at_risk,
                citation=cite,
            )
        )
    return Exposure(
        program=key,
        rows=tuple(rows),
        recapture_share=share,
        total_at_risk=rows[-1].at_risk if rows else extra,
        steps=steps,
    )
