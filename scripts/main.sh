#!/usr/bin/env bash
# The README's main-job command: installs dependencies, builds, runs the self-check (known
# answers, GPU discovery) and the field/curve benchmark. Uses the GPU when one is present.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$here/scripts/deps.sh"
bash "$here/scripts/build.sh"
build="${CZK_BUILD_DIR:-$here/build}"
"$build/bin/czk" selfcheck
"$build/bin/bench_field" --quick
