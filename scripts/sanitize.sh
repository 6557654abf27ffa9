#!/usr/bin/env bash
# Runs Stream's whole test suite under a sanitizer: scripts/sanitize.sh address|thread [extra swift test args].
# Each sanitizer builds into its own scratch path (.build/sanitize-<name>) so the normal build is left alone.
# Suppressions for findings outside our code live in scripts/sanitizers/<name>.supp, one commented entry each.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer="${1:-}"
case "$sanitizer" in
    address|thread) ;;
    *) echo "usage: $0 address|thread [swift test arguments]" >&2; exit 2 ;;
esac
shift

scripts/install-deps.sh

suppressions="$PWD/scripts/sanitizers/$sanitizer.supp"
case "$sanitizer" in
    address)
        # Leak checking stays on; a non-zero exit on any report makes the run fail. The quarantine of freed blocks
        # (256 MB by default) grows a process's resident memory with every byte it frees until it is full, which
        # the fault tests would read as the broadcaster's memory growing during an outage; 16 MB still holds the
        # blocks freed in the last moments (what a use-after-free touches) without hiding real growth.
        export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:quarantine_size_mb=16}"
        if [ -f "$suppressions" ]; then export LSAN_OPTIONS="suppressions=$suppressions:${LSAN_OPTIONS:-}"; fi
        ;;
    thread)
        # Report every race (not just the first) and fail at exit (exitcode 66) if there was any.
        export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1}"
        if [ -f "$suppressions" ]; then export TSAN_OPTIONS="suppressions=$suppressions:$TSAN_OPTIONS"; fi
        ;;
esac

scratch=".build/sanitize-$sanitizer"
echo "building and testing with --sanitize=$sanitizer into $scratch" >&2
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
# One test at a time, as scripts/test.sh does: nginx, ffmpeg and x264 starve each other on two cores otherwise.
swift test --skip-build --no-parallel --sanitize="$sanitizer" --scratch-path "$scratch" "$@"
echo "sanitize-$sanitizer: all tests passed" >&2
