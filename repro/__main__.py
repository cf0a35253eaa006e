"""``python -m repro`` is the ``repro`` command (the workflow calls it this way, with its own interpreter)."""

import sys

from repro.cli import main

sys.exit(main())
