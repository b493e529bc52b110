#!/usr/bin/env bash
# Configures and builds tagwarden into build/ (Release with debug info, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${TAGWARDEN_JOBS:-$(nproc)}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTAGWARDEN_WERROR=ON >/dev/null
cmake --build build -j "$jobs"
