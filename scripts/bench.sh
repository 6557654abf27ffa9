#!/usr/bin/env bash
# Benchmarks Stream beside ffmpeg, nginx-rtmp and nginx (issue #7; HTTP and WebSocket items 8-11 from issue #15).
# Builds stream-bench and stream in release mode, runs every item, prints one table (medians of several runs; each
# ratio is measured within one run) and writes bench-results/<timestamp>.txt and .json.
#   scripts/bench.sh            full mode (3 runs each; ~15-20 min on 2 cores)
#   scripts/bench.sh --quick    smoke mode (1 run, small sizes, ~2 min)
#   other flags go to stream-bench: --runs N, --only 1,2,4 (see .build/release/stream-bench --help)
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in ffmpeg nginx openssl wrk python3; do
    if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
        echo "bench: $tool is missing; run scripts/install-deps.sh" >&2
        exit 1
    fi
done

echo "bench: building release (stream-bench, stream)..." >&2
# The release binary links the Swift runtime and Foundation statically (as shipped binaries should): no Swift .so
# to map and relocate, and only the pages used are resident (-6 MB for a broadcast). The toolchain's static
# Foundation warns about its own mktemp use at link time; that line is not ours.
release=(-c release --static-swift-stdlib)
# One --product per invocation: with several, SwiftPM builds only the last.
for product in stream-bench stream; do
    swift build "${release[@]}" --product "$product" 2>&1 | grep -E "error|warning: " | grep -v "mktemp" >&2 || true
done
bin="$(swift build "${release[@]}" --show-bin-path)"
if [ ! -x "$bin/stream-bench" ] || [ ! -x "$bin/stream" ]; then
    echo "bench: release build failed" >&2
    exit 1
fi

mkdir -p bench-results
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
work="$(mktemp -d /tmp/stream-bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT
echo "bench: load before start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2
"$bin/stream-bench" --stream "$bin/stream" --work "$work" --cache bench-results/cache \
    --out "bench-results/$stamp" "$@"
echo "bench: wrote bench-results/$stamp.txt and .json" >&2
