#!/usr/bin/env bash
# Debian's Chromium for the design page's browser test
# (tests/tests/design.rs, run when ENTITY_BROWSER_TEST=1 or chromium is
# found). Installs it only where it is missing.
set -euo pipefail
command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
chromium --version
