#!/usr/bin/env bash
# The README's picture of the HTML report's landing page, made from the committed outputs (nothing is trained):
#   bash docs/report_screenshot.sh [quick|paper]  ->  docs/report_landing.png
# Builds the report (workflow/report/Snakefile) into a temporary file, then headless Chromium draws its landing page
# at 1400 x 1800 (apt-get install chromium; the report's page renders by JavaScript, hence the time budget).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-quick}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
snakemake -s workflow/report/Snakefile --cores 2 --config profile="$profile" -q > "$out/build.log" 2>&1
snakemake -s workflow/report/Snakefile --config profile="$profile" --report "$out/report.html" -q >> "$out/build.log" 2>&1
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1800 \
    --virtual-time-budget=20000 --screenshot="$PWD/docs/report_landing.png" "file://$out/report.html" \
    >> "$out/build.log" 2>&1
echo "wrote docs/report_landing.png (profile $profile)"
