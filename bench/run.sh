#!/bin/sh
# run.sh [benchmark regexp] — runs BenchmarkToolsCall (or the benchmarks
# the regexp matches) 6 times (COUNT overrides) and prints benchstat's
# comparison: one table per unit, a row per transport and mode, a column
# per implementation, each compared with mcpwire's (the first column);
# then cmd/ratios's table of each mcpwire variant against the faster peer
# (medians).
#
# The rounds are interleaved (every benchmark once, then again…) rather
# than -count=6 in a row, so that a burst of load on a shared machine
# lands on all implementations alike. The raw results are kept in $OUT
# (default: a temporary file, named at the end).
set -eu
cd "$(dirname "$0")"
pattern=${1:-ToolsCall}
count=${COUNT:-6}
out=${OUT:-$(mktemp -t mcpwire-bench.XXXXXX)}
bin=$(mktemp -d -t mcpwire-bench-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/bench.test" .
: >"$out"
i=0
while [ "$i" -lt "$count" ]; do
	i=$((i + 1))
	echo "round $i of $count" >&2
	"$bin/bench.test" -test.run '^$' -test.bench "$pattern" -test.count 1 -test.timeout 1h | tee -a "$out"
done
echo
go run golang.org/x/perf/cmd/benchstat@latest -col /impl "$out"
echo
go run ./cmd/ratios "$out"
echo
echo "raw results: $out"
