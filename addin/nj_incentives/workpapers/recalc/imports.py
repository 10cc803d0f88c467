"""Importing the formula engine without paying for what the templates never use.

``formulas`` (1.3.4) loads its whole function library the first time a model is built,
and its statistics module runs ``from scipy import stats, linalg`` and ``from
scipy.interpolate import interp1d`` at import: about a second on a small machine, for
functions (KURT, NORM.INV, FORECAST, PERCENTILE ...) that the templates never call.

:func:`import_engine` imports that module with the three scipy names bound to
stand-ins that import the real scipy module on first use (attribute access, or a call
of ``interp1d``). Nothing else changes: a workbook that calls a statistical function
gets the real scipy at that moment, the same result, only later. The stand-ins live in
``sys.modules`` only while that one module is imported; afterwards ``import scipy.stats``
anywhere gets the real module. If scipy is already imported, or anything about the
import differs from what is expected, the library is imported the ordinary way.

Measured in docs/performance.md ("Headless recalculation", fresh process).
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["DEFERRED", "import_engine"]

#: The scipy modules the engine's statistics module binds at import time.
DEFERRED = ("scipy.stats", "scipy.linalg", "scipy.interpolate")

_STATISTICS = "formulas.functions.stat"
_LOCK = threading.Lock()


class _Deferred(types.ModuleType):
    """Stands for a scipy module; the first attribute read imports the real one."""

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        real = importlib.import_module(self.__name__)
        if real is self:  # still inside the import window: nothing to defer to
            raise AttributeError(attribute)
        return getattr(real, attribute)


def _deferred_function(module: str, name: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = name
    return call


def import_engine() -> None:
    """Import ``formulas`` and its function library, scipy deferred (see the module doc)."""
    with _LOCK:
        if _STATISTICS in sys.modules:
            return
        if any(name in sys.modules for name in DEFERRED):
            importlib.import_module(_STATISTICS)
            return
        import scipy

        stand_ins = {name: _Deferred(name) for name in DEFERRED}
        stand_ins["scipy.interpolate"].interp1d = _deferred_function(  # type: ignore[attr-defined]
            "scipy.interpolate", "interp1d"
        )
        sys.modules.update(stand_ins)
        try:
            importlib.import_module(_STATISTICS)
        except Exception:
            sys.modules.pop(_STATISTICS, None)
            _remove(scipy, stand_ins)
            importlib.import_module(_STATISTICS)  # the ordinary way
        finally:
            _remove(scipy, stand_ins)
        importlib.import_module("formulas")


def _remove(scipy: types.ModuleType, stand_ins: Mapping[str, types.ModuleType]) -> None:
    for name, stand_in in stand_ins.items():
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
        short = name.rpartition(".")[2]
        if vars(scipy).get(short) is stand_in:
            delattr(scipy, short)
