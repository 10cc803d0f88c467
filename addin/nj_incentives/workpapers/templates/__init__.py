"""The template workbooks' layout engine and build (issue 5).

The templates are declared in their programs' folders (``programs/<key>/templates/``, in
the vocabulary of :mod:`nj_incentives.core.workpaper`) and named by the registry
(:func:`nj_incentives.programs.templates`). :mod:`nj_incentives.workpapers.templates.builder`
is the FAST/ICAEW-style layout engine over xlsxwriter that writes them;
:mod:`nj_incentives.workpapers.templates.build` writes every registered template and its
filled example into the repository's ``workbooks/``.
"""
