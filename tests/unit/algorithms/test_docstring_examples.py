"""The usage examples in the algorithm layer's docstrings run as written."""

import doctest
import importlib

import pytest


@pytest.mark.parametrize("module", ["repro.algorithms.base", "repro.algorithms.fedavg"])
def test_docstring_example_runs(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
