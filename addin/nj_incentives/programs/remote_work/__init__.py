"""The remote-work election (subsection h. of N.J.S.A. 34:1B-129 and its twins): a shared
provision, one text in four NJEDA programs' sections, enacted by P.L.2022, c.134 and
amended by the January 2024 act and P.L.2024, c.40 (shared/legal-notes.md section 6.1;
the c.134 texts of 34:1B-129 h. and 34:1B-120 b. are word for word the same):

- BEIP, N.J.S.A. 34:1B-129 h.: a registered user today (``uses=("remote_work",)`` in
  ``programs/beip/__init__.py``; its functions keep their names, NJ_BEIP_REMOTE_WORK_*);
- BRRAG, N.J.S.A. 34:1B-120 b.; Urban Transit Hub, N.J.S.A. 34:1B-209; Grow NJ,
  N.J.S.A. 34:1B-247: the same text governs them; they are not programs of the package
  yet and will register as users of this provision when they are added (a later issue).
  Where they differ (what "the commitment period" is, the base of the 10% payment) is
  recorded in docs/interpretations.md, "Remote-work election (h., h.(1), h.(2))".

Its figures are keyed ``remote_work.*`` (``figures.py``), its rules are ``rules.py``,
its NJ_* functions ``functions.py``. The programs that use it:
:func:`nj_incentives.programs.users`.
"""

from nj_incentives.core.program import Program

PROGRAM = Program(
    key="remote_work",
    title="Remote-work election (shared provision)",
    citation="N.J.S.A. 34:1B-129 h.",
    parts=("figures", "rules", "functions", "memo"),
)
