"""The README's reuse example runs as written (documentation that drifts from the code is a bug)."""

import re
from pathlib import Path

import numpy as np
import torch

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    scope: dict = {}
    for code in blocks:
        exec(compile(code, str(README), "exec"), scope)  # noqa: S102 - our own README
    counts = np.asarray(scope["label_counts"](scope["parts"], scope["data"].train_y))
    assert counts.shape == (20, 10) and counts.sum() == len(scope["data"].train_y)
    assert scope["sigma"] > 0 and scope["q"].shape == (20, 7850) and torch.isfinite(scope["q"]).all()
    assert scope["gains"].shape == (20,) and (scope["gains"] >= 0).all()
