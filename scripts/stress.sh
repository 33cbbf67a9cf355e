#!/usr/bin/env bash
# make stress: the long form of the reliability tests (issue #6), then one
# table of what they measured. Settings come from the environment:
#   KILL_ROUNDS   SIGKILL rounds of prefetch (clean gets half)   default 200
#   SOAK_SECONDS  how long 8 processes and a cleaner share a cache  default 180
#   FUZZ_SECONDS  per fuzz target                                default 120
set -uo pipefail
cd "$(dirname "$0")/.."
swift="${SWIFT:-swift}"
out=.build/stress
mkdir -p "$out"
report="$PWD/$out/report.tsv" fuzz_report="$PWD/$out/fuzz.tsv"
rm -f "$report" "$fuzz_report"

"$swift" build --build-tests || exit 1
started=$(date +%s)
IMGCACHE_STRESS_REPORT="$report" IMGCACHE_KILL_ROUNDS="${KILL_ROUNDS:-200}" IMGCACHE_SOAK_SECONDS="${SOAK_SECONDS:-180}" \
  "$swift" test --skip-build \
  --filter 'CrashSafetyTests|KilledCleanTests|SoakTests|CorruptionTests|DiskFullTests|ReadOnlyCacheTests|FaultTests|HostileServer|CrossProcessCoalescingTests' \
  > "$out/tests.log" 2>&1
tests=$?
FUZZ_REPORT="$fuzz_report" bash scripts/fuzz.sh "${FUZZ_SECONDS:-120}" > "$out/fuzz.log" 2>&1
fuzz=$?

echo
echo "## make stress — $(date -u +%Y-%m-%d), $(( $(date +%s) - started )) s"
echo
echo "| Check | How | Outcome |"
echo "| --- | --- | --- |"
[ -f "$report" ] && sort -s -t $'\t' -k1,1 "$report" | awk -F'\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }'
if [ -f "$fuzz_report" ]; then
  awk -F'\t' '$1 != "target" { printf "| Fuzz %s | libFuzzer + ASan, %s s | %s executions, %s findings |\n", $1, $2, $3, $4 }' "$fuzz_report"
fi
echo
echo "Tests: $([ $tests = 0 ] && echo passed || echo "FAILED (see $out/tests.log)")." \
     "Fuzzing: $([ $fuzz = 0 ] && echo "no findings" || echo "FINDINGS or errors (see $out/fuzz.log)")."
[ $tests = 0 ] && [ $fuzz = 0 ]
