"""``nj_incentives.server``: the name xlwings Server's setup steps give (docs/install.md). The
module is :mod:`nj_incentives.runtimes.server`; this name is that same module object (not a
copy).
"""

import sys

from nj_incentives.runtimes import server

sys.modules[__name__] = server
