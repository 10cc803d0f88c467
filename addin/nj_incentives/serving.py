"""``nj_incentives.serving``: the name xlwings Server's setup steps give (docs/install.md). The
module is :mod:`nj_incentives.runtimes.serving`; this name is that same module object (not a
copy).
"""

import sys

from nj_incentives.runtimes import serving

sys.modules[__name__] = serving
