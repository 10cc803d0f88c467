"""The Corporation Business Tax statutory minimum (N.J.S.A. 54:10A-5(e))."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="cbt",
    title="Corporation Business Tax minimum",
    citation="N.J.S.A. 54:10A-5(e)",
    parts=("figures", "rules", "functions", "memo"),
)
