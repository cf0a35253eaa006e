import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests draw the same examples on every run, so CI outcomes never depend on luck.
settings.register_profile("repro", derandomize=True, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repro"))

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"

# Tests find the offline dataset copies beside the checkout unless told otherwise.
if "REPRO_DATA_MIRROR" not in os.environ and SHARED_DATASETS.is_dir():
    os.environ["REPRO_DATA_MIRROR"] = str(SHARED_DATASETS)


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


@pytest.fixture(autouse=True)
def _single_thread_torch():
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    yield
