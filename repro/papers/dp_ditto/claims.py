"""Claims of dp_ditto as verdict functions (repro.claims); being rewritten from the pass/fail checks."""

from repro.claims import ClaimSet

CLAIMS = ClaimSet("dp_ditto")
