"""The remote-work election shared by four NJEDA programs: BEIP (N.J.S.A. 34:1B-129 h.),
BRRAG (34:1B-120 b.), Urban Transit Hub (34:1B-209) and Grow NJ (34:1B-247), one text
(P.L.2022, c.134; shared/legal-notes.md section 6.1)."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="remote_work",
    title="Remote-work election (shared provision)",
    citation="N.J.S.A. 34:1B-129 h.",
    parts=("figures", "functions", "memo"),
)
