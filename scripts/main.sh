#!/usr/bin/env bash
# The README's first command: set up, build, and invert the default input (a SOAR
# background-error covariance on a 2-D grid), printing the report.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
"$MINV_BUILD/examples/example_invert_soar" 48
