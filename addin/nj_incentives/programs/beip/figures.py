"""BEIP's dated figures: N.J.S.A. 34:1B-129 a. to g. (P.L.1996, c.26, s.6), with 34:1B-134
and N.J.A.C. 19:31I; the statute's record and its base text (the model:
:mod:`nj_incentives.core.parameters`; subsection h.:
:mod:`nj_incentives.programs.remote_work.figures`)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from nj_incentives.core.parameters import (
    Parameter,
    Selector,
    Version,
    declare_act,
    declare_figure,
    declare_statute,
)
from nj_incentives.programs.remote_work.figures import SubsectionH, declare_subsection_h

declare_statute(
    "beip",
    "Business Employment Incentive Program grant",
    "N.J.S.A. 34:1B-129",
    not_modelled=(
        "N.J.S.A. 34:1B-133 (section 10): text not found",
        "BEIP closed to new applications under P.L.2013, c.161 (approved September 18,"
        " 2013): only agreements made before then exist",
    ),
)

#: The text in shared/statutes: the section as amended through P.L.2022, c.134.
BASE_BEIP = declare_act(
    "beip",
    "P.L.2022, c.134",
    dt.date(2022, 7, 1),
    source="shared/statutes/NJSA-34-1B-129-BEIP-grant.txt (as amended through P.L.2022, c.134)",
    note=(
        "the text in shared/statutes; the approval date of P.L.2022, c.134 is not in the"
        " notes: modelled from July 1, 2022, the first day its subsection h. covers"
    ),
)

#: The act whose text of subsections a.-c. the text in shared/statutes keeps (issue 34;
#: docs/interpretations.md "Law as of": which act the figures of a.-c. are read from).
P_L_2003_C_166 = declare_act(
    "beip",
    "P.L.2003, c.166",
    dt.date(2003, 7, 1),
    source=(
        "the history line of shared/statutes/NJSA-34-1B-129-BEIP-grant.txt (L.1996, c.26,"
        ' s.6; amended ... 2003, c.166, s.4; ...); a.: "agreement entered into on or after'
        ' July 1, 2003"'
    ),
    note=(
        "its approval date is not in the notes: modelled from July 1, 2003, the first"
        " agreement date its a. names; the figures of a.-c. and N.J.S.A. 34:1B-134 are read"
        " as law from it (docs/interpretations.md, Law as of)"
    ),
)
#: Subsections e. and g. (conversion to tax credits, transfer certificates).
P_L_2015_C_194 = declare_act(
    "beip",
    "P.L.2015, c.194",
    dt.date(2016, 1, 11),
    source=(
        "shared/legal-notes.md sections 1 and 4: subsection e. enacted by P.L.2015, c.194,"
        " approved January 11, 2016; g. speaks of the credit of e."
    ),
    note="the transfer figures of g.(3) and the dates of e. are read as law from it",
)

_B = "N.J.S.A. 34:1B-129"

MINIMUM_GRANT_PCT: Parameter[Decimal] = declare_figure(
    "beip.minimum_grant_pct",
    "beip",
    "Lowest grant percentage (either basis)",
    f"{_B}a.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.10"), P_L_2003_C_166),
    quote="not less than 10 percent",
)
MAXIMUM_PCT_OF_WITHHOLDINGS: Parameter[Decimal] = declare_figure(
    "beip.maximum_pct_of_withholdings",
    "beip",
    "Highest grant percentage of withholdings",
    f"{_B}a.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.50"), P_L_2003_C_166),
    quote="not more than 50 percent of the withholdings",
)
MAXIMUM_PCT_OF_PARTNERS_TAX: Parameter[Decimal] = declare_figure(
    "beip.maximum_pct_of_partners_tax",
    "beip",
    "Highest grant percentage of the partners' estimated tax",
    f"{_B}a.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.30"), P_L_2003_C_166),
    quote="not more than 30 percent of the estimated tax of the partners",
)
SMART_GROWTH_MAXIMUM_PCT_OF_WITHHOLDINGS: Parameter[Decimal] = declare_figure(
    "beip.smart_growth_maximum_pct_of_withholdings",
    "beip",
    "Highest grant percentage of withholdings with smart growth",
    f"{_B}b.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.80"), P_L_2003_C_166),
    quote="up to 80 percent of the withholdings",
)
SMART_GROWTH_MAXIMUM_PCT_OF_PARTNERS_TAX: Parameter[Decimal] = declare_figure(
    "beip.smart_growth_maximum_pct_of_partners_tax",
    "beip",
    "Highest grant percentage of the partners' estimated tax with smart growth",
    f"{_B}b.",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.50"), P_L_2003_C_166),
    quote="up to 50 percent of the estimated tax of the partners",
)
MAXIMUM_TERM_YEARS: Parameter[int] = declare_figure(
    "beip.maximum_term_years",
    "beip",
    "Longest term of a grant (years)",
    f"{_B}c.",
    Selector.AGREEMENT_DATE,
    "count",
    Version(10, P_L_2003_C_166),
    quote="The term of the grant shall not exceed 10 years.",
)
AVERAGE_CAP: Parameter[Decimal] = declare_figure(
    "beip.average_cap",
    "beip",
    "Average cap per new employee over the term",
    f"{_B}a.; N.J.A.C. 19:31I-1.4(a)",
    Selector.AGREEMENT_DATE,
    "money",
    Version(Decimal(50000), P_L_2003_C_166),
    quote="exceed an average of $50,000 for all new employees over the term of the grant",
)
CAP_AGREEMENTS_FROM: Parameter[dt.date] = declare_figure(
    "beip.cap_agreements_from",
    "beip",
    "The average cap binds agreements entered into from",
    f"{_B}a.",
    Selector.FIXED,
    "date",
    Version(dt.date(2003, 7, 1), P_L_2003_C_166),
    quote="agreement entered into on or after July 1, 2003",
)
COMBINED_LIMIT_PCT_OF_WITHHOLDINGS: Parameter[Decimal] = declare_figure(
    "beip.combined_limit_pct_of_withholdings",
    "beip",
    "Combined State grants limit, share of withholdings",
    "N.J.S.A. 34:1B-134(b)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.50"), P_L_2003_C_166),
)
COMBINED_LIMIT_PCT_OF_PARTNERS_TAX: Parameter[Decimal] = declare_figure(
    "beip.combined_limit_pct_of_partners_tax",
    "beip",
    "Combined State grants limit, share of the partners' estimated tax",
    "N.J.S.A. 34:1B-134(b)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.30"), P_L_2003_C_166),
)
SMART_GROWTH_COMBINED_LIMIT_PCT_OF_WITHHOLDINGS: Parameter[Decimal] = declare_figure(
    "beip.smart_growth_combined_limit_pct_of_withholdings",
    "beip",
    "Combined State grants limit with smart growth, share of withholdings",
    "N.J.S.A. 34:1B-134(c)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.80"), P_L_2003_C_166),
)
SMART_GROWTH_COMBINED_LIMIT_PCT_OF_PARTNERS_TAX: Parameter[Decimal] = declare_figure(
    "beip.smart_growth_combined_limit_pct_of_partners_tax",
    "beip",
    "Combined State grants limit with smart growth, share of the partners' estimated tax",
    "N.J.S.A. 34:1B-134(c)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.50"), P_L_2003_C_166),
)

# e. (P.L.2015, c.194, as re-timed by P.L.2016, c.9): conversion to tax credits.
#: (paragraph, first accrual year, last accrual year, first tax year, shares or the
#: number of equal installments).
CONVERSION_TABLE: Parameter[tuple[tuple[int, int, int, int, tuple[Decimal, ...] | int], ...]] = (
    declare_figure(
        "beip.conversion_table",
        "beip",
        "Conversion installments by accrual year (paragraph, accrual years, first tax year,"
        " shares)",
        f"{_B}e.(1)-(13)",
        Selector.ACCRUAL_YEAR,
        "table",
        Version(
            (
                (
                    1,
                    2008,
                    2013,
                    2017,
                    tuple(Decimal(s) for s in ("0.05", "0.20", "0.25", "0.25", "0.25")),
                ),
                (2, 2014, 2014, 2019, 4),
                (3, 2015, 2015, 2019, 4),
                (4, 2016, 2016, 2020, 3),
                (5, 2017, 2017, 2020, 3),
                (6, 2018, 2018, 2022, 2),
                (7, 2019, 2019, 2022, 2),
                (8, 2020, 2020, 2023, 2),
                (9, 2021, 2021, 2023, 2),
                (10, 2022, 2022, 2023, 2),
                (11, 2023, 2023, 2023, 2),
                (12, 2024, 2024, 2025, 1),
                (13, 2025, 2025, 2025, 1),
            ),
            BASE_BEIP,
        ),
    )
)
STATE_FISCAL_YEAR_2017_START: Parameter[dt.date] = declare_figure(
    "beip.state_fiscal_year_2017_start",
    "beip",
    "Commencement of State fiscal year 2017 (late approval, e.(1))",
    f"{_B}e.(1)",
    Selector.FIXED,
    "date",
    Version(dt.date(2016, 7, 1), BASE_BEIP),
    quote="approved by the authority by the commencement of State fiscal year 2017",
)
ENACTMENT_P_L_2015_C_194: Parameter[dt.date] = declare_figure(
    "beip.enactment_p_l_2015_c_194",
    "beip",
    "Enactment of P.L.2015, c.194",
    f"{_B}e.",
    Selector.FIXED,
    "date",
    # approved (enacted) January 11, 2016 (shared/legal-notes.md section 4; an earlier
    # version of the notes said November 9, 2015: that was wrong)
    Version(dt.date(2016, 1, 11), P_L_2015_C_194),
    quote="approved for a grant prior to the enactment of P.L.2015, c.194",
)
DIRECTION_DEADLINE_PUBLISHED: Parameter[dt.date] = declare_figure(
    "beip.direction_deadline_published",
    "beip",
    "Direction deadline the Authority published (day 180 fell on a Saturday)",
    f"{_B}e.; docs/interpretations.md",
    Selector.FIXED,
    "date",
    Version(dt.date(2016, 7, 11), P_L_2015_C_194),
)
DIRECTION_DAYS: Parameter[int] = declare_figure(
    "beip.direction_days",
    "beip",
    "Days after the enactment to direct the conversion",
    f"{_B}e.",
    Selector.FIXED,
    "days",
    Version(180, P_L_2015_C_194),
    quote="Within 180 days of the date of enactment of P.L.2015, c.194",
)

# g.(3): transfer certificates.
TRANSFER_MINIMUM: Parameter[Decimal] = declare_figure(
    "beip.transfer_minimum",
    "beip",
    "Smallest transfer of a tax credit",
    f"{_B}g.(3)",
    Selector.FIXED,
    "money",
    Version(Decimal(100000), P_L_2015_C_194),
    quote="in an amount not less than $100,000",
)
MINIMUM_CONSIDERATION_SHARE: Parameter[Decimal] = declare_figure(
    "beip.minimum_consideration_share",
    "beip",
    "Lowest consideration, share of the credit transferred",
    f"{_B}g.(3)",
    Selector.FIXED,
    "fraction",
    Version(Decimal("0.75"), P_L_2015_C_194),
    quote="not ... less than 75 percent of the transferred credit amount",
)

# 34:1B-125: the definition of the base years (shared/legal-notes.md section 1; the
# section's text is not in shared/statutes: the text the notes give).
BASE_YEARS: Parameter[int] = declare_figure(
    "beip.base_years",
    "beip",
    "Base years: complete calendar years following the agreement's effective date",
    "N.J.S.A. 34:1B-125",
    Selector.FIXED,
    "count",
    Version(2, BASE_BEIP),
    quote="the first two complete calendar years following the effective date of the agreement",
)

# h.: the remote-work election, the text P.L.2022, c.134 enacted in four sections, in its
# three versions (P.L.2022, c.134; the January 2024 act; P.L.2024, c.40): the shared
# provision's figures, filed on this section's record (programs/remote_work/figures.py).
H: SubsectionH = declare_subsection_h(
    "beip", "beip", "N.J.S.A. 34:1B-129", "h.", BASE_BEIP, verified=True
)

# The award's obligations after the grant (shared/legal-notes.md section 6.2.1): the
# compliance calendar and the amount at risk (programs/awards/rules.py).
ANNUAL_REPORT_DUE: Parameter[tuple[int, int]] = declare_figure(
    "beip.annual_report_due",
    "beip",
    "Annual report for the preceding grant year due (month, day)",
    "N.J.S.A. 34:1B-131 a.",
    Selector.FIXED,
    "month_day",
    Version((3, 1), BASE_BEIP),
)
COMMITMENT_MULTIPLE: Parameter[Decimal] = declare_figure(
    "beip.commitment_multiple",
    "beip",
    "Commitment to stay at the site, times the term of the grant",
    "N.J.S.A. 34:1B-130 d., k.",
    Selector.AGREEMENT_DATE,
    "number",
    Version(Decimal("1.5"), BASE_BEIP),
)
BASE_EMPLOYMENT_SHARE: Parameter[Decimal] = declare_figure(
    "beip.base_employment_share",
    "beip",
    "Employment kept, share of the Base Employment Number",
    "N.J.A.C. 19:31I-1.6(a)",
    Selector.AGREEMENT_DATE,
    "fraction",
    Version(Decimal("0.80"), BASE_BEIP),
)
