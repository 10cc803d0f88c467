"""The NJ_* Excel functions as xlwings serves them: the table of
:mod:`nj_incentives.functions`, decorated for xlwings.

This is the module users name under "UDF Modules" (classic xlwings add-in on Windows,
as ``nj_incentives.excel``) and import in xlwings Lite / xlwings Server (Office.js,
through :mod:`nj_incentives.lite` and ``nj_incentives.excel``). Python names are the
Excel names. Each function here is the table's adapter
(:data:`nj_incentives.functions.CATALOG`) with ``xw.func`` and ``xw.arg(name, doc=...)``
for every argument (the catalog's description, with its citation, and argument help,
which Excel's Insert Function dialog and the Office.js metadata show); nothing about a
function is declared here. The core is imported on the first call, not at import:
importing this module costs little more than ``import xlwings``.

Errors (:func:`nj_incentives.core.cells.error_message`): a bad input never yields a
number and never a traceback. The message is short: ``argument = value: rule (citation)``.

- Office.js (xlwings Lite, xlwings Server): the function raises ``xlwings.XlwingsError``
  with the message; the cell shows #VALUE! and the message on hover.
- Classic add-in and plain Python calls: the function returns the text
  ``"#VALUE! " + message``; classic xlwings cannot return a real Excel error value.

For the headless recalculation use :mod:`nj_incentives.functions` (``functions()``,
``FUNCTIONS``), which imports no xlwings; the names are re-exported here for callers of
the earlier layout.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

import xlwings as xw

from nj_incentives.core.cells import (
    Cell,
    CellResult,
    MissingPackage,
    error_message,
    error_text,
    finite,
)
from nj_incentives.functions import (
    CATALOG,
    FUNCTIONS,
    ExcelFunction,
    LawAsOfRun,
    functions,
    law_as_of_applied,
    law_as_of_in_force,
)

__all__ = [
    "CATALOG",
    "CATEGORY",
    "DOCS_URL_VARIABLE",
    "DROPDOWNS",
    "FUNCTIONS",
    "RUNTIME",
    "ExcelFunction",
    "LawAsOfRun",
    "decorate",
    "functions",
    "help_url",
    "law_as_of_applied",
    "law_as_of_in_force",
]

logger = logging.getLogger(__name__)

#: The Excel function category shown by the classic add-in's Insert Function dialog.
CATEGORY = "NJ Incentives"


def _runtime() -> Literal["office.js", "classic", "plain"]:
    """Which xlwings decorators ``import xlwings`` bound (they are chosen at import time)."""
    module = getattr(xw.func, "__module__", "") or ""
    if module.startswith("xlwings.pro"):  # xlwings.server: xlwings Lite and xlwings Server
        return "office.js"
    if module == "xlwings.udfs":  # Windows with pywin32: the classic COM add-in
        return "classic"
    return "plain"


#: ``"office.js"``, ``"classic"`` or ``"plain"``: decides how errors reach the cell.
RUNTIME = _runtime()


def _dropdowns() -> bool:
    """Whether xlwings offers a ``typing.Literal`` argument as a dropdown of its words:
    the Office.js runtimes from xlwings 0.35.3 (``extract_enum_descriptor``); the classic
    add-in would read the annotation as a converter, so it gets none."""
    if RUNTIME != "office.js":
        return False
    try:
        from xlwings.pro import udfs_officejs
    except Exception:  # no licence key, or another xlwings
        return False
    return hasattr(udfs_officejs, "extract_enum_descriptor")


#: True where a switch's argument is annotated ``Literal[...]`` (Excel's dropdown).
DROPDOWNS = _dropdowns()

#: The environment variable naming where docs/ is published (an https address; xlwings
#: Lite: Menu > Environment Variables): each function's help link in Excel's function
#: wizard points at its section of ``functions.md`` there, which links its readings in
#: ``interpretations.md``. Unset: no help link (the package has no public address).
DOCS_URL_VARIABLE = "NJ_INCENTIVES_DOCS_URL"


def help_url(name: str) -> str | None:
    """The help link of the function ``name`` (None without :data:`DOCS_URL_VARIABLE`)."""
    import os

    base = os.environ.get(DOCS_URL_VARIABLE, "").strip().rstrip("/")
    if not base.startswith(("https://", "http://")):
        return None
    return f"{base}/functions.md#{name.lower()}"


if RUNTIME == "office.js":
    # xlwings tries ``import pyodide.ffi`` for every cell of a range argument; outside
    # Pyodide each attempt fails after a search of sys.path (about 90 µs a cell): try once
    # and prepares each result cell with pandas.isna and a row of isinstance tests: plain
    # text, numbers and booleans are answered at once (issue 35)
    # and evaluates each function's type hints (the switches' Literal dropdowns) on every
    # call: worked out once a function (issue 35)
    from nj_incentives.runtimes.serving import (
        cache_jsnull_checks,
        declare_special_hints,
        quick_result_cells,
        quick_special_args,
    )

    cache_jsnull_checks()
    quick_result_cells()
    quick_special_args()


def _failed(function: str, exc: Exception) -> str:
    """Report a failed call the way the runtime can show it (see the module docstring)."""
    from nj_incentives.core.common import InputError

    if not isinstance(exc, InputError | MissingPackage):
        logger.error("%s failed unexpectedly", function, exc_info=exc)
    if RUNTIME == "office.js":
        raise xw.XlwingsError(error_message(exc, function)) from None
    return error_text(exc, function)


def decorate(entry: ExcelFunction) -> Callable[..., CellResult]:
    """``entry`` (a function of :data:`~nj_incentives.functions.CATALOG`) as xlwings calls
    it: decorated with ``xw.func`` and ``xw.arg(name, doc=...)`` for every argument; it
    converts the cells, calls ``compute``, ``show``s the result, and turns any failure
    into the runtime's error (module docstring). Its docstring is the calculation's
    description (with its citation), which Excel's Insert Function dialog shows."""
    name, compute, show, convert = entry.name, entry.compute, entry.show, entry.convert

    @functools.wraps(compute)
    def cell_function(*args: Cell, **kwargs: Cell) -> CellResult:
        try:
            return finite(show(compute(*convert(args, kwargs))), name)
        except Exception as exc:
            return _failed(name, exc)

    # xlwings finds a function's module (its namespace attribute) through __module__
    cell_function.__module__ = __name__
    # xlwings reads converters from annotations: none here, the cells arrive as they are;
    # a switch's words as ``Literal[...]`` where xlwings makes them Excel's dropdown
    cell_function.__annotations__ = {
        argument.name: Literal[argument.choices]
        for argument in entry.arguments
        if argument.choices and DROPDOWNS
    }
    # The signature, worked out once: the Office.js dispatch asks for it on every call
    # (xlwings' provide_values_for_special_args), and would otherwise rebuild it from
    # ``compute`` each time. The same signature inspect gives through __wrapped__.
    signature = inspect.signature(compute)
    cell_function.__signature__ = signature  # type: ignore[attr-defined]
    cell_function.__doc__ = entry.description
    help_text = entry.help_text
    decorated: Callable[..., CellResult] = cell_function
    for parameter in reversed(list(signature.parameters.values())):
        # err_to_str: an error cell arrives as its text ("#N/A"), not as a blank
        decorated = xw.arg(parameter.name, doc=help_text[parameter.name], err_to_str=True)(
            decorated
        )
    if RUNTIME != "office.js":
        return xw.func(category=CATEGORY)(decorated)
    # Office.js: every NJ_* function is pure (its result depends on its arguments only),
    # so Excel may keep a result and skip the call until an argument changes
    # (``cache=True``); the help link opens its documentation (:func:`help_url`)
    served = xw.func(category=CATEGORY, cache=True, help_url=help_url(name))(decorated)
    declare_special_hints(served)
    return served


# Every NJ_* function of the table, decorated, as a member of this module (xlwings
# collects a module's functions from its members), in catalog order.
globals().update({name: decorate(entry) for name, entry in CATALOG.items()})

if TYPE_CHECKING:

    def __getattr__(name: str) -> Callable[..., CellResult]: ...  # the NJ_* members above


# ``from nj_incentives.excel import *`` (xlwings Lite's main.py) brings every function.
__all__ += list(CATALOG)
