"""``python -m pathgate``: the pathgate command."""

import sys

from .cli import main

sys.exit(main())
