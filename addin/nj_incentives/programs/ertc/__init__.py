"""The Economic Recovery Tax Credit (N.J.S.A. 52:27BBB-55; Form 313)."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="ertc",
    title="Economic Recovery Tax Credit",
    citation="N.J.S.A. 52:27BBB-55",
    parts=("figures", "rules", "functions", "templates", "memo", "scenarios"),
)
