"""The calculation core: one module per statute, ordered by subsection.

- :mod:`nj_incentives.programs.beip.rules`: the Business Employment Incentive Program grant,
  N.J.S.A. 34:1B-129 (with the grant limitations of 34:1B-134 and N.J.A.C. 19:31I).
- :mod:`nj_incentives.programs.ertc.rules`: the Economic Recovery Tax Credit, N.J.S.A. 52:27BBB-55
  (NJ Form 313).
- :mod:`nj_incentives.programs.cbt.rules`: the Corporation Business Tax statutory minimum,
  N.J.S.A. 54:10A-5(e).
- :mod:`nj_incentives.core.common`: exact money, input errors and explanations.
- :mod:`nj_incentives.core.rules`: the rule language: each rule written once, run exactly
  (explained only when its steps are read) or over int64 arrays by the scenario runner;
  one module per role (``rules.language``, ``rules.exact``, ``rules.explaining``,
  ``rules.vectorized``), every name imported from ``nj_incentives.core.rules``.

Pure functions and pydantic models; ``Decimal`` money; no xlwings, pandas or file I/O
(numpy only inside the int64 evaluator, imported when it is constructed).
"""
