"""One text per rule: a small rule language and the evaluators that run it.

A rule of law is written once, in its statute's module, as a plain Python function whose
first argument is an evaluator ``r`` and whose every computation is one of ``r``'s
operations. Three evaluators run the same function:

- :data:`EXACT` (:class:`Exact`): ``Decimal`` money, exact fractions, ``datetime.date``;
  the amounts path of the core. It records nothing.
- :class:`Explain`: the same exact arithmetic, with each value carrying its arithmetic;
  every operation given a ``label`` becomes an explanation :class:`~.common.Step` (figure,
  arithmetic, citation). Only the steps the results depend on are kept (a branch not
  taken by :meth:`Rules.where` explains nothing). Run only when steps are asked for; even
  then a value's arithmetic text is built only when a kept step shows it, and the steps
  a result depends on are found once, at the end, from the results back.
- :class:`Int64`: many rows at once, over numpy arrays: money in int64 cents, fractions
  as :class:`Ratio` (integer numerators over one denominator), dates as day numbers since
  1970-01-01 (the scenario runner). numpy is imported only when it is constructed, so the
  exact path stays import-light (xlwings Lite, Pyodide).

How to write a rule
-------------------
::

    def annual_grant_rule(r: Rules, withholdings: V, pct: V) -> V:
        return r.share(withholdings, pct, label="Annual grant", cite=CITE_A)

    EXACT.run(annual_grant_rule, Decimal("1000000.00"), Decimal("0.5"))  # 500000.00
    explain(annual_grant_rule, Decimal("1000000.00"), Decimal("0.5"))    # (result, steps)
    Int64().run(annual_grant_rule, cents_array, Ratio(pct_array, 10**9))  # int64 cents

Rules for the text:

- Every computation goes through ``r`` (``share``, ``times``, ``div``, ``muldiv``,
  ``add``, ``sub``, ``total``, ``min``, ``max``, ``where``, comparisons, ``whole``,
  ``both``, ``either``, ``not_``, ``count``, ``per_unit``, ``quotient``, ``discount``
  (exact evaluators only), ``given``, ``quantity``, ``fiscal_year``,
  ``month_start``, ``month_end``, ``add_months``, ``add_days``); never Python
  arithmetic, ``if`` on a value, or
  ``min``/``max`` builtins on values: under :class:`Int64` a value is a whole column.
  Python loops over a fixed structure (the years of a term) are fine.
- Constants are the law module's named figures (``Decimal`` money or fractions,
  ``Fraction``, ``datetime.date``, ``int`` counts): never retype a figure. A ``Decimal``
  in a money position is money; in ``share`` or compared with a fraction it is a
  fraction. Integer 0 is zero in any position.
- Give ``label`` (and ``cite``, the subsection) to each operation whose figure an
  accountant should see as a step; unlabelled operations show inside the arithmetic of
  the labelled one that uses them.
- Input checking (``InputError``) stays outside the rule, in the law function that parses
  the arguments; a rule may compute a condition (e.g. "within the bounds") that the law
  function turns into an error and the runner into a mask.

Modules (one per role; import from this package, which re-exports them):

- :mod:`.language`: :class:`Rules`, the operations; ``V``;
- :mod:`.exact`: :class:`Exact`, :data:`EXACT`, :data:`ZERO`;
- :mod:`.explaining`: :class:`Explain`, :class:`Term`, :func:`explain`;
- :mod:`.vectorized`: :class:`Int64`, :class:`Ratio` and the integer helpers.
"""

from __future__ import annotations

from nj_incentives.core.rules.exact import EXACT, ZERO, Exact
from nj_incentives.core.rules.explaining import Explain, Term, explain
from nj_incentives.core.rules.language import Rules, V
from nj_incentives.core.rules.vectorized import (
    Int64,
    Ratio,
    civil_from_days,
    days_from_civil,
    days_in_month,
    mul_frac,
    muldiv_floor,
    select,
)

__all__ = [
    "EXACT",
    "ZERO",
    "Exact",
    "Explain",
    "Int64",
    "Ratio",
    "Rules",
    "Term",
    "V",
    "civil_from_days",
    "days_from_civil",
    "days_in_month",
    "explain",
    "mul_frac",
    "muldiv_floor",
    "select",
]
