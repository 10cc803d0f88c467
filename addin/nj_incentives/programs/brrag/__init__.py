"""Business Retention and Relocation Assistance Grant (N.J.S.A. 34:1B-112 et seq.;
N.J.A.C. 19:31M-1, 19:31N-1): its dated figures (shared/legal-notes.md section 6.2.3) and
the remote-work election in N.J.S.A. 34:1B-120 b. (the shared provision ``remote_work``;
its P.L.2022, c.134 text is word for word 34:1B-129 h.'s, verified)."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="brrag",
    title="Business Retention and Relocation Assistance Grant",
    citation="N.J.S.A. 34:1B-120",
    parts=("figures",),
    uses=("remote_work",),
)
