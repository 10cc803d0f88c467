"""Urban Transit Hub's dated figures: N.J.S.A. 34:1B-207 et seq. and N.J.A.C. 19:31H-1
(shared/legal-notes.md section 6.2.4; model: :mod:`nj_incentives.core.parameters`).

The annual report's 120 days is secondary for UTH (an NJEDA release citing "existing
rules"; the UTH rule section was not read): a documented assumption with a switch.
"""

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
    "uth",
    "Urban Transit Hub Tax Credit",
    "N.J.S.A. 34:1B-209",
    not_modelled=(
        "the subsection letter of the remote-work text in N.J.S.A. 34:1B-209 (not found:"
        " cited without a letter)",
        "the carryforward and the commitment duration (not found): the agreement's commitment"
        " end is an input",
        "whether the 2021 change of the full-time employee definition (80% to 60%) reached"
        " UTH (34:1B-208 not read)",
    ),
)

#: The texts read: N.J.S.A. 34:1B-209 (casetext, current through P.L.2024, c.80) and
#: N.J.A.C. 19:31H-1.1, 1.12. The remote-work text's version of P.L.2022, c.134 is its first.
BASE_UTH = declare_act(
    "uth",
    "P.L.2022, c.134",
    dt.date(2022, 7, 1),
    source=(
        "N.J.S.A. 34:1B-209 (casetext, current through P.L.2024, c.80 [S42]); N.J.A.C."
        " 19:31H-1.1, 19:31H-1.12 [S19][S43]; the remote-work text by the bill records'"
        " statute lists [S3][S4] (shared/legal-notes.md 6.1, 6.2.4)"
    ),
    confirmed=False,
    note=(
        "the remote-work text of 34:1B-209 was not retrievable: its identity with 34:1B-129 h."
        " is asserted by summaries (switch text_identity)"
    ),
)

ANNUAL_SHARE: Parameter[Decimal] = declare_figure(
    "uth.annual_share",
    "uth",
    "Share of the total credit applied a year",
    "N.J.A.C. 19:31H-1.1",
    Selector.APPROVAL_DATE,
    "fraction",
    Version(Decimal("0.10"), BASE_UTH),
)
ANNUAL_REPORT_DAYS: Parameter[int] = declare_figure(
    "uth.annual_report_days",
    "uth",
    "Annual report due, days after the end of the privilege period (secondary)",
    "NJEDA release of 2020-04-13 citing existing rules (N.J.A.C. 19:31H-1)",
    Selector.TAX_PERIOD,
    "days",
    Version(120, BASE_UTH),
)
STATEWIDE_REDUCTION: Parameter[Decimal] = declare_figure(
    "uth.statewide_reduction",
    "uth",
    "Statewide full-time employees may fall by at most (more: that period's credit forfeited)",
    "N.J.A.C. 19:31H-1.12(b)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.20"), BASE_UTH),
)
FEWEST_NEW_POSITIONS: Parameter[int] = declare_figure(
    "uth.fewest_new_positions",
    "uth",
    "Fewest full-time employees in new full-time positions (fewer: the annual credit reduced)",
    "N.J.A.C. 19:31H-1.12(a)",
    Selector.TAX_PERIOD,
    "count",
    Version(200, BASE_UTH),
)
REDUCTION_SHARE: Parameter[Decimal] = declare_figure(
    "uth.reduction_share",
    "uth",
    "Reduction of the annual credit below the fewest new positions",
    "N.J.A.C. 19:31H-1.12(a)",
    Selector.TAX_PERIOD,
    "fraction",
    Version(Decimal("0.20"), BASE_UTH),
)

#: The remote-work election in 34:1B-209 (subsection letter not found; identity with
#: 34:1B-129 h. asserted by summaries only), with the request of P.L.2024, c.40 to reduce
#: the Statewide employees before December 31, 2024.
H: SubsectionH = declare_subsection_h(
    "uth", "uth", "N.J.S.A. 34:1B-209", "", BASE_UTH, verified=False, reduce_statewide_request=True
)
