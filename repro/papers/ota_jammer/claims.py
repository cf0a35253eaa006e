"""Claims of ota_jammer as verdict functions (repro.claims); being rewritten from the pass/fail checks."""

from repro.claims import ClaimSet

CLAIMS = ClaimSet("ota_jammer")
