"""``python -m dsh_tools.cli``: the same entry point as the ``dsh-tools`` script."""

import sys

from dsh_tools.cli import main

sys.exit(main())
