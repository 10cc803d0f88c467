"""The portfolio's template workbook (declared with :mod:`nj_incentives.core.workpaper`;
the layout engine writes it).

:data:`TEMPLATES` names it for the registry (:func:`nj_incentives.programs.templates`)
without importing it: the list of shipped workbooks costs no import of the law.
"""

#: Each template's id -> the module of this package declaring it.
TEMPLATES = {
    "portfolio": "portfolio",
}
