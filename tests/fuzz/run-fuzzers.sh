#!/usr/bin/env bash
# Runs the libFuzzer targets of a -Dfuzz=enabled build, each for SECONDS,
# seeded from the shipped files, and prints one summary line per target:
#   tests/fuzz/run-fuzzers.sh BUILD_DIR SECONDS [TARGET...]
# TARGET is workload, arch, mapping, expr, result or sweep-csv (default:
# all six). The corpus
# each run grows is kept in BUILD_DIR/fuzz-corpus/TARGET (later runs start
# from it); a crashing input is written to BUILD_DIR/fuzz-artifacts/ and
# the script exits 1. See docs/fuzzing.md.
set -u
build="$1"; seconds="$2"; shift 2
src="$(cd "$(dirname "$0")/../.." && pwd)"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(workload arch mapping expr result sweep-csv)
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp"
status=0
for t in "${targets[@]}"; do
  exe="$build/tests/fuzz/fuzz-$t"
  corpus="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts"
  mkdir -p "$corpus" "$artifacts"
  case "$t" in
    workload) seeds=("$src/workloads" "$src/tests/data/workload"); dict=json.dict ;;
    arch) seeds=("$src/arch-models/json/architectures" "$src/tests/data/arch" "$src/tests/data/archplugins" "$src/tests/fuzz/seeds/arch"); dict=json.dict ;;
    mapping) seeds=("$src/docs/examples/mappings" "$src/tests/data/mapping" "$src/tests/data/cost"); dict=json.dict ;;
    expr) seeds=("$src/tests/fuzz/seeds/expr"); dict=expr.dict ;;
    result) seeds=("$src/tests/hostile/results" "$src/docs/results" "$src/tests/data/mapping/valid"); dict=json.dict ;;
    sweep-csv) seeds=("$src/tests/fuzz/seeds/sweep-csv"); dict=csv.dict ;;
    *) echo "unknown fuzz target '$t'" >&2; exit 2 ;;
  esac
  # Seed folders that hold sub-folders (valid/, invalid/) are listed whole.
  seed_dirs=()
  for s in "${seeds[@]}"; do
    [ -d "$s" ] || continue
    while IFS= read -r d; do seed_dirs+=("$d"); done < <(find "$s" -type d)
  done
  log="$build/fuzz-$t.log"
  "$exe" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -dict="$src/tests/fuzz/$dict" \
    -artifact_prefix="$artifacts/$t-" "$corpus" "${seed_dirs[@]}" > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1)
  echo "fuzz-$t: ${seconds} s, ${execs:-?} executions, ${cov:-cov: ?}, ${ft:-ft: ?}, corpus $(ls "$corpus" | wc -l) files, exit $rc"
  if [ $rc -ne 0 ]; then
    status=1
    grep -m1 -A30 'ERROR:\|runtime error\|SUMMARY' "$log" | head -40
  fi
done
exit $status
