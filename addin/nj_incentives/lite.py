"""``nj_incentives.lite``: the name xlwings Lite's ``main.py`` and xlwings Server's
configuration import. The module is :mod:`nj_incentives.runtimes.lite`; this name is
that same module object (not a copy).
"""

import sys

from nj_incentives.runtimes import lite

sys.modules[__name__] = lite
