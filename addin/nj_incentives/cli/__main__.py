"""``python -m nj_incentives.cli``: the ``nj-incentives`` command."""

import sys

from nj_incentives.cli import main

sys.exit(main(sys.argv[1:]))
