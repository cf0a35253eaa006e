"""One sub-package per paper (see :mod:`repro.experiment` for the shape and :mod:`repro.registry`).

Directories named in ``REPRO_PAPER_DIRS`` (``os.pathsep``-separated) are searched for more paper
packages, so a paper can be developed outside this repository.
"""

import os
import pkgutil

__path__ = pkgutil.extend_path(__path__, __name__)
for _d in filter(None, os.environ.get("REPRO_PAPER_DIRS", "").split(os.pathsep)):
    _d = os.path.abspath(_d)
    if os.path.isdir(_d) and _d not in __path__:
        __path__.append(_d)
