"""BEIP: the Business Employment Incentive Program grant and its conversion to tax
credits (N.J.S.A. 34:1B-129, 34:1B-134; N.J.A.C. 19:31I)."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="beip",
    title="Business Employment Incentive Program",
    citation="N.J.S.A. 34:1B-129",
    parts=("figures", "rules", "functions", "templates", "memo", "scenarios"),
    uses=("remote_work",),
)
