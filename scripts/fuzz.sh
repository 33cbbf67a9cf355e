#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ and runs each for SECONDS (default 60).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz.sh 600 FuzzJPEG FuzzPNG
#
# Seeds: Fuzz/corpus/<Target>/ (committed, read-only here), plus the shared
# real-image corpus (../shared/corpus) when present: its files of the target's
# format under 50 KB are copied into the scratch dir, never into the project
# (its README asks that); FuzzJXL's are made by scripts/make-jxl-samples.sh. New inputs go to .build-fuzz/corpus/<Target>/, crash,
# timeout and OOM inputs to .build-fuzz/results/<Target>/. One line per target
# is printed at the end: "target executions findings"; with FUZZ_REPORT set,
# the same goes to that file as TSV (target, seconds, executions, findings).
# Exits non-zero if any target found anything.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=60
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
all=(FuzzJPEG FuzzPNG FuzzGIF FuzzWebP FuzzAVIF FuzzJXL FuzzHEIF FuzzAPNG FuzzCacheRecord FuzzArguments)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
swift=${SWIFT:-swift}
scratch="$root/.build-fuzz"
shared="${IMGCACHE_CORPUS:-$root/../shared/corpus}"

for target in "${targets[@]}"; do
    [[ " ${all[*]} " == *" $target "* ]] || { echo "fuzz.sh: unknown target $target (one of: ${all[*]})" >&2; exit 2; }
done

# One product at a time: `swift build --product` takes one name. Debug, for
# -enable-testing (the harness uses @testable import); -O on top because
# unoptimised Swift under ASan ran about 8 GIF inputs a second. Optimised
# Swift keeps its overflow and bounds traps.
for target in "${targets[@]}"; do
    "$swift" build --package-path "$root/Fuzz" --scratch-path "$scratch" -c debug \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -O --product "$target" 2>&1 \
        | grep -v "Cannot export local symbol" || true
    [ -x "$scratch/debug/$target" ] || { echo "fuzz.sh: $target did not build" >&2; exit 2; }
done

# The shared corpus's files for a target: by file name prefix (and the bad/
# inputs of that format), under 50 KB.
shared_seeds() {
    local prefix
    case "$1" in
        FuzzJPEG) prefix=jpeg ;; FuzzPNG | FuzzAPNG) prefix=png ;; FuzzGIF) prefix=gif ;; FuzzWebP) prefix=webp ;;
        FuzzAVIF) prefix=avif ;; FuzzHEIF) prefix=heic ;; *) return ;;
    esac
    [ -d "$shared" ] || return
    find "$shared/images" "$shared/bad" -maxdepth 1 -type f -name "${prefix}_*" -size -50k 2>/dev/null
}

# Swift's own backtracer would otherwise run before libFuzzer saves the input.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}

summary=()
status=0
for target in "${targets[@]}"; do
    corpus="$scratch/corpus/$target" results="$scratch/results/$target" extra="$scratch/seeds/$target"
    mkdir -p "$corpus" "$results" "$extra"
    shared_seeds "$target" | while read -r file; do cp -f "$file" "$extra/"; done
    # The shared corpus has no JPEG XL: the tests' own images, made by cjxl.
    [ "$target" = FuzzJXL ] && sh "$root/scripts/make-jxl-samples.sh" "$extra"
    log="$results/fuzz.log"
    echo "== $target: ${seconds}s, log $log"
    before=$(find "$results" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    "$scratch/debug/$target" "$corpus" "$root/Fuzz/corpus/$target" "$extra" \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
        -artifact_prefix="$results/" >"$log" 2>&1
    code=$?
    after=$(find "$results" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    findings=$(( after - before ))
    # A non-zero exit without a saved input (the fuzzer itself failed) still counts.
    [ "$code" -ne 0 ] && [ "$findings" -eq 0 ] && findings=1
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    summary+=("$target ${executions:-0} $findings")
    if [ "$findings" -ne 0 ]; then
        status=1
        grep -E "^(SUMMARY|==[0-9]+== ERROR|.*Fatal error|artifact_prefix|Test unit written)" "$log" | head -5
    fi
done

echo "target executions findings"
printf '%s\n' "${summary[@]}"
if [ -n "${FUZZ_REPORT:-}" ]; then
    {
    printf 'target\tseconds\texecutions\tfindings\n'
    for line in "${summary[@]}"; do
        read -r target executions findings <<<"$line"
        printf '%s\t%s\t%s\t%s\n' "$target" "$seconds" "$executions" "$findings"
    done
    } >"$FUZZ_REPORT"
fi
exit $status
