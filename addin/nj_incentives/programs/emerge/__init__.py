"""Emerge (P.L.2020, c.156, ss.68-81, N.J.S.A. 34:1B-336 et seq.; N.J.A.C. 19:31U-1):
the credit schedule with the approved award as input, its carryforward of 7 periods
(19:31U-1.11(b)), transfer certificates (34:1B-346) and the surrender to the State
(N.J.A.C. 18:34-1.7(b)); shared/legal-notes.md section 6.4."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="emerge",
    title="Emerge Program",
    citation="N.J.S.A. 34:1B-336",
    parts=("figures", "rules", "functions", "templates", "memo"),
)
