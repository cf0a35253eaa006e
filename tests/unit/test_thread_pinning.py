"""``repro.pipeline.set_threads`` pins torch's intra-op threads without importing torch itself."""

import subprocess
import sys


def _threads_after(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "", "OMP_NUM_THREADS": "2"})
    return out.stdout.strip()


def test_threads_pinned_when_torch_is_imported_later():
    code = ("import sys; from repro.pipeline import set_threads; set_threads(1); "
            "print('torch' in sys.modules, end=' '); import torch; print(torch.get_num_threads())")
    assert _threads_after(code) == "False 1"


def test_threads_pinned_when_torch_is_already_imported():
    code = "import torch; from repro.pipeline import set_threads; set_threads(1); print(torch.get_num_threads())"
    assert _threads_after(code) == "1"


def test_listing_a_papers_jobs_does_not_import_the_plotting_stack():
    """A run job lists its paper's jobs (``job_specs``) before it trains: that must not import matplotlib or the
    figures' modules (about 2 s in each of the ~90 run processes of a rebuild)."""
    code = ("import sys; from repro import experiment as ex\n"
            "ex.job_specs('dp_ditto', 'quick'); ex.job_datasets('dp_ditto', 'quick'); ex.run_resources('dp_ditto', 'quick')\n"
            "bad = [m for m in sys.modules if m == 'matplotlib' or m.endswith('.figures')]\n"
            "print(bad)")
    assert _threads_after(code) == "[]"
