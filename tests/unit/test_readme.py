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


def test_readme_code_fences_are_balanced():
    fences = [line for line in README.read_text().splitlines() if line.startswith("```")]
    assert len(fences) % 2 == 0, f"{len(fences)} code fences: one block is never closed"
    assert all(f == "```" for f in fences[1::2]), "a closing fence carries a language tag"
