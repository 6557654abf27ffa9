#!/usr/bin/env bash
# The README's main job in one command: install the Debian packages, build `stream` in release mode, and run
# `stream demo` (built-in server with a live show and its watch page, whose address it prints, + the test broadcast
# with PiP as the show's host for 60 s; then prints where the recording is).
# Arguments are passed to `stream demo`, e.g. `scripts/demo.sh --duration 300 --pip-corner top-left`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --static-swift-stdlib --product stream
exec .build/release/stream demo "$@"
