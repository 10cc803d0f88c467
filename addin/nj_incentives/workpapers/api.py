"""The Python API of the workpapers: fill, calculate and write memos in one process, as
the commands do (docs/filling.md, "From Python: fill, calc and memo").

::

    from nj_incentives.workpapers import api

    batch = api.fill_each("ertc-form-313", "clients.csv", "filled/", key="client",
                          hours="payroll")                    # one workbook per client
    for refused in batch.refused:                             # every refused one named
        print(refused.key, *refused.messages, sep="\\n  ")
    for client, filled in batch.written:
        result = api.calc(filled.path)                        # recalculated, no Excel
        print(client, result.master_check, result.value("CarriedForward"))
        api.memo([result], f"memos/{client}.pdf")             # one memo per client

- :func:`fill` and :func:`fill_each` write workbooks (:mod:`~.fill`, :mod:`~.batch`);
  :func:`rollforward` rolls one to its next period (:mod:`~.rollforward`);
- :func:`calc` recalculates one workbook as ``nj-incentives calc`` does (vetted as
  untrusted, within the same budgets; ``law_as_of`` as ``--law-as-of``) and gives its
  outputs as numbers (:func:`~.outputs.output_records`), its master check, its failed
  checks, its sign-offs and its engagement; :class:`CalcError` when it cannot be
  recalculated at all (``calc``'s exit status 2);
- :func:`memo` writes the calculation memo of one or more results (.pdf, .html, .md).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nj_incentives.workpapers.batch import Batch, Refused, fill_each
from nj_incentives.workpapers.fill import Filled, FillError, fill
from nj_incentives.workpapers.rollforward import Rolled, rollforward

if TYPE_CHECKING:
    from nj_incentives.workpapers.recalc import Recalculation
    from nj_incentives.workpapers.recalc.safety import Limits

__all__ = [
    "Batch",
    "CalcError",
    "Calculated",
    "FillError",
    "Filled",
    "Refused",
    "Rolled",
    "calc",
    "fill",
    "fill_each",
    "memo",
    "rollforward",
]


class CalcError(ValueError):
    """A workbook that cannot be recalculated at all (missing, refused as unsafe,
    unreadable): ``calc``'s exit status 2; the message names the file and why."""


@dataclass(frozen=True)
class Calculated:
    """One workbook recalculated (:func:`calc`)."""

    path: Path
    #: TRUE when every check passes; FALSE; None when the workbook has no master check
    master_check: bool | None
    #: each output as a record: name, cell, label, unit, value, display (and error)
    outputs: list[dict[str, Any]]
    #: the engagement fields (label -> text)
    engagement: dict[str, str]
    #: the failed checks: (check, citation)
    failed_checks: list[tuple[str, str]]
    #: each sign-off as calc --json gives it (role, name, ISO date, stale ...)
    signoffs: list[dict[str, Any]]
    #: the law applied (``law_as_of``), or None for each call's own
    law_as_of: dt.date | None = None
    #: the recalculation itself (every cell's value; the memo reads it)
    recalculation: Recalculation | None = field(default=None, repr=False, compare=False)

    def value(self, name: str) -> Any:
        """An output's value by its defined name or its label (KeyError if none)."""
        for record in self.outputs:
            if name in (record["name"], record["label"]):
                return record["value"]
        raise KeyError(f"{self.path.name}: no output named {name!r}")


def calc(
    workbook: str | Path,
    *,
    law_as_of: dt.date | None = None,
    limits: Limits | None = None,
) -> Calculated:
    """Recalculate ``workbook`` as ``nj-incentives calc`` does and return its figures
    (module docstring). Raises :class:`CalcError` when it cannot be recalculated."""
    from nj_incentives.functions import law_as_of_applied
    from nj_incentives.workpapers.memo import checks, engagement, master_check
    from nj_incentives.workpapers.outputs import output_records
    from nj_incentives.workpapers.recalc import DEFAULT_LIMITS, UnsafeWorkbookError, vet_workbook
    from nj_incentives.workpapers.recalc.prebuilt import recalculate_template
    from nj_incentives.workpapers.recalc.safety import budgets
    from nj_incentives.workpapers.signoff import status

    path = Path(workbook)
    limits = limits or DEFAULT_LIMITS
    try:
        vetted = vet_workbook(path, limits)
        with (
            budgets(limits, f"recalculating {path.name}"),
            law_as_of_applied(law_as_of),
        ):
            recalc = recalculate_template(vetted)
    except FileNotFoundError as error:
        raise CalcError(f"{path}: no such file") from error
    except (UnsafeWorkbookError, OSError) as error:
        raise CalcError(f"{path}: refused: {error}") from error
    except Exception as error:  # a workbook the engine cannot read
        raise CalcError(
            f"{path}: could not be recalculated: {type(error).__name__}: {error}"
        ) from error
    verdict = master_check(recalc)
    failed = [(label, cite) for label, cite, result in checks(recalc) if result is not True]
    return Calculated(
        path=path,
        master_check=verdict if isinstance(verdict, bool) else None,
        outputs=output_records(recalc),
        engagement=engagement(recalc),
        failed_checks=failed,
        signoffs=[signoff.as_dict() for signoff in status(recalc)],
        law_as_of=law_as_of,
        recalculation=recalc,
    )


def memo(
    results: Sequence[Calculated],
    path: str | Path,
    *,
    steps: str = "summary",
) -> Path:
    """Write the calculation memo of ``results`` to ``path`` (.pdf, .html or .md; one
    result: a memo whose header is its engagement), under the law each was calculated
    with; never over one of their workbooks. ``steps``: as ``calc --steps``."""
    from nj_incentives.functions import law_as_of_applied
    from nj_incentives.workpapers.memo import write_memo

    recalcs = [r.recalculation for r in results if r.recalculation is not None]
    laws = {r.law_as_of for r in results}
    if len(laws) > 1:
        raise ValueError("one memo applies one law: the results were calculated under several")
    with law_as_of_applied(laws.pop() if laws else None):
        return write_memo(path, recalcs, protect=[r.path for r in results], steps=steps)
