import pytest

# every benchmark here is run with pedantic(), a fixed small number of rounds: keeps the suite short
pytest.importorskip("pytest_benchmark")
