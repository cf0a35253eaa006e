"""Every ``>>>`` example in repro/engine/API.md runs as written (a user copies from that page)."""

from __future__ import annotations

import doctest
from pathlib import Path

API_MD = Path(__file__).resolve().parents[2] / "repro" / "engine" / "API.md"


def test_api_md_examples_run():
    text = API_MD.read_text()
    assert text.count(">>>") >= 40, "API.md lost its examples"
    assert "```python" not in text, "a ```python block is not run; write examples as ```pycon with >>> prompts"
    result = doctest.testfile(str(API_MD), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                              raise_on_error=False, verbose=False, report=True)
    assert result.attempted >= 40
    assert result.failed == 0, f"{result.failed} of {result.attempted} API.md examples failed (details above)"
