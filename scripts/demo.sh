#!/usr/bin/env bash
# The README's main job in one command: install the Debian packages, build `stream` in release mode, and run
# `stream demo` (built-in server + test broadcast with PiP for ~10 s; prints where the recording is).
# Arguments are passed to `stream demo`, e.g. `scripts/demo.sh --duration 20 --pip-corner top-left`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product stream
exec .build/release/stream demo "$@"
