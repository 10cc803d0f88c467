"""BEIP's template workbooks, one module each (declared with
:mod:`nj_incentives.core.workpaper`; the layout engine writes them).

:data:`TEMPLATES` names them for the registry (:func:`nj_incentives.programs.templates`)
without importing them: the list of shipped workbooks costs no import of the law.
"""

#: Each template's id -> the module of this package declaring it.
TEMPLATES = {
    "beip-grant-schedule": "grant",
    "beip-credit-conversion": "conversion",
}
