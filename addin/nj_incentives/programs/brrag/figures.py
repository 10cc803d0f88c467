"""BRRAG's dated figures: N.J.S.A. 34:1B-112 et seq. and N.J.A.C. 19:31M-1, 19:31N-1
(shared/legal-notes.md section 6.2.3; model: :mod:`nj_incentives.core.parameters`).

The per-job yearly amount ($1,500, $2,250 with bonus) is secondary in the notes and is not
a figure here: the credit of the project agreement is an input.
"""

from __future__ import annotations

import datetime as dt

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
    "brrag",
    "Business Retention and Relocation Assistance Grant",
    "N.J.S.A. 34:1B-120",
    not_modelled=(
        "the yearly tax credit amount per retained job ($1,500, $2,250 with bonus: secondary):"
        " the credit of the project agreement is an input",
        "N.J.A.C. 19:31N-1.1(b)'s use in the period issued and the next (the statute's single"
        " period is read)",
    ),
)

#: The texts read: N.J.S.A. 34:1B-120 as amended by P.L.2022, c.134 (lawserver, Rutgers).
BASE_BRRAG = declare_act(
    "brrag",
    "P.L.2022, c.134",
    dt.date(2022, 7, 1),
    source=(
        "N.J.S.A. 34:1B-120 (P.L.2022, c.134, s.1; lawserver and Rutgers mirrors [S1][S2]);"
        " 34:1B-115, -115.3, -120.1, -120.2; N.J.A.C. 19:31M-1.13 (shared/legal-notes.md 6.2.3)"
    ),
    note=(
        "the approval date of P.L.2022, c.134 is not in the notes: modelled from July 1, 2022,"
        " the first day its remote-work subsection covers (as BEIP's)"
    ),
)

ANNUAL_CERTIFICATE_DUE: Parameter[tuple[int, int]] = declare_figure(
    "brrag.annual_certificate_due",
    "brrag",
    "Annual certificate of compliance due (month, day)",
    "N.J.S.A. 34:1B-120 a.",
    Selector.TAX_PERIOD,
    "month_day",
    Version((3, 1), BASE_BRRAG),
)
MINIMUM_RETAINED_JOBS: Parameter[int] = declare_figure(
    "brrag.minimum_retained_jobs",
    "brrag",
    "Fewest retained full-time jobs",
    "N.J.S.A. 34:1B-115 a.",
    Selector.APPROVAL_DATE,
    "count",
    Version(50, BASE_BRRAG),
)

#: b.: the remote-work election (its P.L.2022, c.134 text is word for word 34:1B-129 h.'s,
#: verified: shared/legal-notes.md 6.1.1).
H: SubsectionH = declare_subsection_h(
    "brrag", "brrag", "N.J.S.A. 34:1B-120", "b.", BASE_BRRAG, verified=True
)
