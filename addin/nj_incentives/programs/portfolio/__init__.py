"""A portfolio of awards against one Corporation Business Tax liability (issue 33 item 4):
BEIP, BRRAG, ERTC, Urban Transit Hub, Grow NJ and Emerge credits of one or more entities,
applied period by period in the order of N.J.A.C. 18:7-3.17, each within its program's
own limits, carried forward and expiring as its program allows, each on its return line."""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="portfolio",
    title="Portfolio of awards against the CBT",
    citation="N.J.A.C. 18:7-3.17",
    parts=("rules", "functions", "templates", "memo", "scenarios"),
)
