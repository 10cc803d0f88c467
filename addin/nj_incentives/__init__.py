"""nj-incentives: New Jersey business-incentive amounts, exact to the cent.

The law is :mod:`nj_incentives.core` (its machinery) and :mod:`nj_incentives.programs`
(one folder per statute or shared provision, registered there). Everything
else (the Excel functions in :mod:`nj_incentives.excel`, the template workbooks, the
headless recalculation, the scenario runner and the command line) is built on it.
"""

from __future__ import annotations

from typing import Any

from nj_incentives.version import LAW_CURRENT_TO, __version__

__all__ = ["LAW_CURRENT_TO", "__version__"]

#: The script the Office.js runtimes list beside the functions (see nj_incentives.lite).
_SCRIPTS = ("nj_reenter_formulas",)


def __getattr__(name: str) -> Any:
    """Every NJ_* custom function and the scripts, as members of the package itself,
    imported on first use: a runtime that collects the functions of an installed
    package's top-level module (``xlwings.server.custom_functions_meta(nj_incentives)``)
    finds them all, while ``import nj_incentives`` stays as cheap as before."""
    if name.startswith("NJ_") or name in _SCRIPTS:
        from nj_incentives.runtimes import lite

        if hasattr(lite, name):
            return getattr(lite, name)
    raise AttributeError(f"module 'nj_incentives' has no attribute {name!r}")


def __dir__() -> list[str]:
    from nj_incentives.runtimes import lite

    return sorted({*globals(), *(n for n in lite.__all__ if n.startswith("NJ_")), *_SCRIPTS})
