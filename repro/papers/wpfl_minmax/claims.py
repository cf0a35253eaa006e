"""Claims of wpfl_minmax as verdict functions (repro.claims); being rewritten from the pass/fail checks."""

from repro.claims import ClaimSet

CLAIMS = ClaimSet("wpfl_minmax")
