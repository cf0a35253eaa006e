"""Claims of acfl as verdict functions (repro.claims); being rewritten from the pass/fail checks."""

from repro.claims import ClaimSet

CLAIMS = ClaimSet("acfl")
