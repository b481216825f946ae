#!/bin/sh
# run.sh [benchmark regexp] — runs the benchmarks of this module
# -count=6 (COUNT overrides) and prints benchstat's comparison: one table
# per unit, a row per transport and mode, a column per implementation,
# each compared with mcpwire's (the first column); then cmd/ratios's table
# of each mcpwire variant against the faster peer (medians). The raw
# results are kept in $OUT (default: a temporary file, named at the end).
set -eu
cd "$(dirname "$0")"
pattern=${1:-.}
count=${COUNT:-6}
out=${OUT:-$(mktemp -t mcpwire-bench.XXXXXX)}
go test -run '^$' -bench "$pattern" -count "$count" -timeout 2h . | tee "$out"
echo
go run golang.org/x/perf/cmd/benchstat@latest -col /impl "$out"
echo
go run ./cmd/ratios "$out"
echo
echo "raw results: $out"
