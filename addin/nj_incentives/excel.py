"""``nj_incentives.excel``: the name users give xlwings' classic add-in (``UDF_MODULES``).

The module is :mod:`nj_incentives.runtimes.xlwings_classic`; this name is that same
module object (not a copy), so xlwings finds its decorated functions and a setting
changed through either name is the same setting.
"""

import sys

from nj_incentives.runtimes import xlwings_classic

sys.modules[__name__] = xlwings_classic
