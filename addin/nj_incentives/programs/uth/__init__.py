"""Urban Transit Hub Tax Credit (N.J.S.A. 34:1B-207 et seq.; N.J.A.C. 19:31H-1): its dated
figures (shared/legal-notes.md section 6.2.4) and the remote-work election of P.L.2022,
c.134 in N.J.S.A. 34:1B-209 (the shared provision ``remote_work``; the identity of its
text with 34:1B-129 h. is asserted by summaries only, a documented assumption:
docs/interpretations.md)."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="uth",
    title="Urban Transit Hub Tax Credit",
    citation="N.J.S.A. 34:1B-209",
    parts=("figures",),
    uses=("remote_work",),
)
