"""The obligations an incentive award carries after its credits (issue 33, items 2-3): the
compliance calendar of each award (its dated obligations, from its agreement's dates and
its program's rules) and the amount at risk by year where an obligation can forfeit or
recapture (the Authority's discretion stays an input). A shared provision over the
programs whose awards a practice tracks (BEIP, BRRAG, Urban Transit Hub, Grow NJ): it
reads each program's figures (``programs/<key>/figures.py``) through the registry."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="awards",
    title="Award obligations: compliance calendar and recapture exposure",
    citation="N.J.S.A. 34:1B-130, -131; 34:1B-120; N.J.A.C. 19:31Q-1.11, -1.15; 19:31H-1.12",
    parts=("rules", "functions", "memo"),
)
