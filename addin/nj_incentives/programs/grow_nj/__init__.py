"""Grow New Jersey Assistance Program (N.J.S.A. 34:1B-242 to -250; N.J.A.C. 19:31Q-1,
formerly 19:31-18): its dated figures (shared/legal-notes.md sections 6.2.2 and 6.3) and
the remote-work election of P.L.2022, c.134 in N.J.S.A. 34:1B-247 (the shared provision
``remote_work``; the identity of its text with 34:1B-129 h. is asserted by summaries
only, a documented assumption: docs/interpretations.md)."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="grow_nj",
    title="Grow New Jersey Assistance Program",
    citation="N.J.S.A. 34:1B-247",
    parts=("figures", "rules", "functions", "templates", "memo"),
    uses=("remote_work",),
)
