"""The template workbooks (issue 5) and the builder they are made with.

:mod:`nj_incentives.workpapers.templates.builder` is the FAST/ICAEW-style layer over xlsxwriter;
each template module builds one workbook into the repository's ``workbooks/`` folder.
"""
