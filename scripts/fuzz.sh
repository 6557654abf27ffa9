#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (a separate package, so the main build never sees them) with
# `--sanitize=fuzzer --sanitize=address` and runs each for a time budget:
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      (default 60 s, all targets)
# Seeds come from Fuzz/Corpus/<target>/ (read only); the growing corpus lives in .build/fuzz-corpus/<target>/;
# crashes, hangs and OOMs are written to fuzz-artifacts/<target>/. Prints a summary; exits 1 if anything crashed.
# Reproduce one: Fuzz/.build/debug/<target> fuzz-artifacts/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
# target:max_len. The handshake and session targets need room for C0+C1+C2 (3073 bytes) and what follows.
all_targets=(FuzzAMF0:4096 FuzzChunkDecoder:8192 FuzzFLV:8192 FuzzServerHandshake:8192 FuzzServerSession:8192
             FuzzSettings:4096 FuzzIngestURL:512 FuzzSDP:8192 FuzzSTUN:1500 FuzzRTCP:2048
             FuzzHTTPRequestHead:4096 FuzzChunkedDecoder:2048 FuzzWebSocketFrameDecoder:2048 FuzzLiveRequest:2048
             FuzzShowsFile:4096)
selected=()
if [ $# -gt 0 ]; then
    for name in "$@"; do
        match=""
        for entry in "${all_targets[@]}"; do [ "${entry%%:*}" = "$name" ] && match="$entry"; done
        [ -n "$match" ] || { echo "unknown target $name (known: ${all_targets[*]%%:*})" >&2; exit 2; }
        selected+=("$match")
    done
else
    selected=("${all_targets[@]}")
fi

# libclang_rt.fuzzer ships with the Swift toolchain; the linker's "Cannot export local symbol" notes are noise.
for entry in "${selected[@]}"; do
    target="${entry%%:*}"
    echo "building $target" >&2
    swift build --package-path Fuzz --sanitize=fuzzer --sanitize=address --product "$target" 2>&1 \
        | grep -v "Cannot export local symbol" | grep -E "error|warning:|Build" >&2 || true
    [ -x "Fuzz/.build/debug/$target" ] || { echo "error: $target did not build" >&2; exit 1; }
done

# Swift's own crash handler would walk memory that ASan guards; let the trap reach libFuzzer directly.
export SWIFT_BACKTRACE=enable=no
summary=()
failed=0
for entry in "${selected[@]}"; do
    target="${entry%%:*}"
    max_len="${entry##*:}"
    corpus=".build/fuzz-corpus/$target"
    artifacts="fuzz-artifacts/$target"
    log=".build/fuzz-logs/$target.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    before=$(find "$artifacts" -type f | wc -l)
    echo "fuzzing $target for ${seconds}s (log: $log)" >&2
    status=0
    # -timeout: a single input running 10 s is a hang; -rss_limit_mb bounds memory (an OOM is a finding too).
    "Fuzz/.build/debug/$target" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" "Fuzz/Corpus/$target" >"$log" 2>&1 \
        || status=$?
    executions=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" | tail -1)
    crashes=$(( $(find "$artifacts" -type f | wc -l) - before ))
    if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi  # died without an artifact
    if [ "$crashes" -gt 0 ]; then
        failed=1
        echo "$target: crashed (exit $status); see $log and $artifacts/" >&2
        grep -E "ERROR|Fatal error|fuzz property|SUMMARY" "$log" | head -5 >&2 || true
    fi
    summary+=("$(printf "%-22s %12s %8s" "$target" "${executions:-?}" "$crashes")")
done

printf "\n%-22s %12s %8s\n" "target" "executions" "crashes"
printf "%s\n" "${summary[@]}"
exit "$failed"
