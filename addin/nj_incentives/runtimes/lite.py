"""The package as Office.js runtimes load it (xlwings Lite, xlwings Server): every NJ_*
custom function and the scripts, as members of one module.

xlwings collects a module's custom functions and scripts from its members
(``xlwings.server.custom_functions_meta`` / ``custom_scripts_meta`` look at every
function of the module, imported ones included), so this module is what a runtime is
pointed at:

- xlwings Lite, ``main.py`` (or a personal module): ``from nj_incentives.lite import *``;
- the package itself: ``nj_incentives`` exposes the same members lazily (see
  ``nj_incentives.__getattr__``), for a runtime that scans an installed package's
  top-level module (Lite's plugins, as its documentation describes them);
- xlwings Server imports ``nj_incentives.excel`` in its project's ``custom_functions``
  package and its own re-entry script from :mod:`nj_incentives.runtimes.server` in
  ``custom_scripts`` (this module's script needs Lite's async API, which xlwings Server
  does not have: docs/install.md, "xlwings Server").

The script :func:`nj_reenter_formulas` re-enters every NJ_* formula of the open workbook
through Excel's own API, spelled for this runtime, so that Excel binds formulas that were
written into the file as text (Excel leaves such formulas at #NAME? when the add-in loads
after the workbook: OfficeDev/office-js#6611). It uses the async API of xlwings Lite
(``xw.BookAsync``, ``get_used_range``, ``get_special_cells``, ``get_formula``: xlwings
0.37.5 or later, "Requires xlwings Lite"). Excel refuses to change cells of a protected
sheet: unprotect the template's sheets first (Review > Unprotect Sheet; no password).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import xlwings as xw

from nj_incentives.runtimes import xlwings_classic as excel
from nj_incentives.runtimes.setup_steps import LITE_XLWINGS
from nj_incentives.runtimes.spelling import calls, respell
from nj_incentives.runtimes.xlwings_classic import *  # noqa: F403  (every NJ_* function, registered)

__all__ = [
    *excel.CATALOG,
    "REENTER_NEEDS",
    "Reentered",
    "nj_reenter_formulas",
    "reenter",
    "runtime_namespace",
]


#: The xlwings the script needs: ``Sheet.get_used_range`` is new in 0.37.5.
REENTER_NEEDS = (0, 37, 5)


def runtime_namespace() -> str:
    """The namespace this runtime's manifest gives the custom functions ("" for none).

    ``NJ_INCENTIVES_NAMESPACE`` (an environment variable; xlwings Lite sets those under
    Menu > Environment Variables) wins; then xlwings Server's ``XLWINGS_FUNCTIONS_NAMESPACE``
    and ``XLWINGS_ENVIRONMENT`` (its manifest appends ``_DEV`` etc. outside prod), read
    from its settings when xlwings Server is installed; otherwise none, as xlwings Lite
    documents its functions (``=HELLO("World")``)."""
    chosen = os.environ.get("NJ_INCENTIVES_NAMESPACE")
    if chosen is not None:
        return chosen.strip().rstrip(".").upper()
    namespace = os.environ.get("XLWINGS_FUNCTIONS_NAMESPACE")
    environment = os.environ.get("XLWINGS_ENVIRONMENT", "prod")
    if namespace is None:
        try:
            from xlwings_server.config import settings
        except Exception:  # not on xlwings Server (Lite, or a plain Python)
            return ""
        namespace = str(getattr(settings, "functions_namespace", "") or "")
        environment = str(getattr(settings, "environment", "prod") or "prod")
    namespace = namespace.strip().upper()
    if environment.lower() != "prod":
        namespace = f"{namespace}_{environment.upper()}" if namespace else environment.upper()
    return namespace


@dataclass
class Reentered:
    """What :func:`reenter` changed: ``{sheet: [address, ...]}`` and the namespace used."""

    namespace: str
    cells: dict[str, list[str]] = field(default_factory=dict)
    arrays: dict[str, list[str]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return sum(map(len, self.cells.values())) + sum(map(len, self.arrays.values()))

    def summary(self) -> str:
        spelled = f"={self.namespace}.NJ_..." if self.namespace else "=NJ_... (no namespace)"
        lines = [f"Re-entered {self.count} NJ_* formula(s), spelled {spelled}:"]
        for sheet in sorted({*self.cells, *self.arrays}):
            cells, arrays = self.cells.get(sheet, []), self.arrays.get(sheet, [])
            lines.append(f"  {sheet}: {len(cells)} cell(s), {len(arrays)} array formula(s)")
        return "\n".join(lines)


def _blocks(grid: Sequence[Sequence[str]]) -> list[tuple[int, int, int, int]]:
    """Rectangles ``(row, col, rows, cols)`` of equal NJ_* formula text (candidates for
    one array formula; a lone cell is a 1x1 rectangle)."""
    seen: set[tuple[int, int]] = set()
    blocks = []
    for i, row in enumerate(grid):
        for j, text in enumerate(row):
            if (i, j) in seen or not _is_nj_formula(text):
                continue
            width = 1
            while j + width < len(row) and row[j + width] == text and (i, j + width) not in seen:
                width += 1
            height = 1
            while i + height < len(grid) and all(
                len(grid[i + height]) > j + k and grid[i + height][j + k] == text
                for k in range(width)
            ):
                height += 1
            seen.update((i + a, j + b) for a in range(height) for b in range(width))
            blocks.append((i, j, height, width))
    return blocks


def _is_nj_formula(text: Any) -> bool:
    return isinstance(text, str) and text.startswith("=") and bool(calls(text))


async def reenter(book: Any, namespace: str | None = None) -> Reentered:
    """Re-enter every NJ_* formula of ``book`` spelled for ``namespace`` (default: this
    runtime's, :func:`runtime_namespace`). A legacy array formula is re-entered as an
    array formula over the same range; every other formula cell by cell."""
    namespace = runtime_namespace() if namespace is None else namespace
    done = Reentered(namespace)
    for sheet in book.sheets:
        used = await sheet.get_used_range()
        if used is None:
            continue
        for area in await used.get_special_cells("formulas"):
            grid = await area.options(ndim=2).get_formula()
            for i, j, rows, cols in _blocks(grid):
                block = area[i : i + rows, j : j + cols]
                text = respell(grid[i][j], namespace)
                array = await block.get_formula_array()
                if array:
                    block.formula_array = respell(array, namespace)
                    done.arrays.setdefault(sheet.name, []).append(block.address)
                    continue
                for a in range(rows):
                    for b in range(cols):
                        cell = block[a, b]
                        cell.formula = text
                        done.cells.setdefault(sheet.name, []).append(cell.address)
    return done


@xw.script
async def nj_reenter_formulas(book: xw.BookAsync) -> None:
    """Re-enter every NJ_* formula of this workbook so that Excel binds them to the
    loaded add-in's functions (run it once after opening a template; unprotect the
    sheets first: Review > Unprotect Sheet, no password)."""
    if _version(xw.__version__) < REENTER_NEEDS:
        print(
            f"nj_reenter_formulas needs xlwings {'.'.join(map(str, REENTER_NEEDS))} or later "
            f"(this workbook runs {xw.__version__}): put {LITE_XLWINGS} in requirements.txt "
            "and restart xlwings Lite (Menu > Restart)."
        )
        return
    done = await reenter(book)
    print(done.summary())


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])
