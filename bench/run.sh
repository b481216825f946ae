#!/bin/sh
# run.sh [-short | -smoke] [-out DIR] [PATTERN]
#
# Without PATTERN: every workload of issues 10 and 30 (W1–W9, the
# Benchmark<Workload>/impl=NAME benchmarks, and outside/run.sh: W8 and W9
# from outside, wrk as the client), COUNT rounds (default 6),
# then benchstat's tables (-col /impl) and cmd/report, which writes
# RESULTS.md, results.json and results.png to DIR (default: this
# directory), with the raw output as results.txt beside them.
#
#   -short  W1–W5, W8, W9 at -benchtime 50ms instead of 1s (wrk: 2s a
#           run): the same rounds in under 15 minutes on 2 cores.
#   -smoke  one round, every workload once (-benchtime 1x) with
#           -test.short's smaller W6 and W7 (100 connections; 10,000
#           requests), wrk for 1s a server: the test command's check
#           that this path works.
#           Use it with -out, so the committed results stay as they are.
#
# With PATTERN: the benchmarks it matches (ToolsCall, RPCEcho, ClientCall,
# Prototype…), COUNT rounds, benchstat, and cmd/ratios (each mcpwire
# variant against the faster peer); the raw output goes to $OUT (default:
# a temporary file, named at the end). No report.
#
# The rounds are interleaved (every benchmark once, then again…) rather
# than -count=6 in a row, so that a burst of load on a shared machine
# lands on all implementations alike. In the full variant each round runs
# W1–W5 as SLICES (default 5) passes of 1s/SLICES each, so that every
# figure is the median of 30 samples spread over the whole run, not of 6:
# a burst lasting seconds then spoils a few samples of each
# implementation rather than a whole sixth of one's. W6 and W7 run once
# per round (-benchtime 1x): one op is 100,000 requests, or a child
# process.
set -eu
cd "$(dirname "$0")"
variant=full
benchtime=1s
count=${COUNT:-6}
slices=${SLICES:-5}
short=
dir=.
while [ $# -gt 0 ]; do
	case $1 in
	-short) variant=short; benchtime=50ms; slices=1 ;;
	-smoke) variant=smoke; benchtime=1x; count=1; slices=1; short=-test.short ;;
	-out) dir=$2; shift ;;
	-*) echo "usage: run.sh [-short | -smoke] [-out DIR] [PATTERN]" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
benchstat="go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da"
bin=$(mktemp -d -t mcpwire-bench-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/bench.test" .

if [ $# -gt 0 ]; then
	out=${OUT:-$(mktemp -t mcpwire-bench.XXXXXX)}
	: >"$out"
	i=0
	while [ "$i" -lt "$count" ]; do
		i=$((i + 1))
		echo "round $i of $count" >&2
		"$bin/bench.test" -test.run '^$' -test.bench "$1" -test.count 1 -test.timeout 1h | tee -a "$out"
	done
	echo
	$benchstat -col /impl "$out"
	echo
	go run ./cmd/ratios "$out"
	echo
	echo "raw results: $out"
	exit 0
fi

mkdir -p "$dir"
raw=$bin/results.txt
# A slice's -benchtime: 1s/5 is 200ms; 50ms and 1x stay as they are.
case $benchtime in
*x) slice=$benchtime ;;
*ms) slice=$((${benchtime%ms} / slices))ms ;;
*s) slice=$((${benchtime%s} * 1000 / slices))ms ;;
esac
: >"$raw"
fast='^Benchmark(Echo|EchoPipelined|EchoBatch|ToolsCallRoundTrip|ToolsCallPipelined|ToolsList|Validate|HTTPToolsCallPipelined|HTTPToolsCallRoundTrip|RPCHTTP)$'
slow='^Benchmark(ManyConns|PeakRSS)$'
i=0
while [ "$i" -lt "$count" ]; do
	i=$((i + 1))
	echo "round $i of $count" >&2
	j=0
	while [ "$j" -lt "$slices" ]; do
		j=$((j + 1))
		"$bin/bench.test" -test.run '^$' -test.bench "$fast" -test.benchtime "$slice" -test.count 1 -test.timeout 1h $short | tee -a "$raw"
	done
	"$bin/bench.test" -test.run '^$' -test.bench "$slow" -test.benchtime 1x -test.count 1 -test.timeout 1h $short | tee -a "$raw"
done
# W8 and W9 from outside: each server a process of its own, wrk as the
# client (skipped, with a message, where wrk is not installed).
case $variant in
full) ROUNDS=$count sh outside/run.sh -out "$raw" ;;
short) ROUNDS=$count DURATION=2s sh outside/run.sh -out "$raw" ;;
smoke) ROUNDS=1 DURATION=1s CONNS=4 sh outside/run.sh -out "$raw" ;;
esac
echo
$benchstat -col /impl "$raw"
note="Machine: a shared 2-core VM, its cores used by other work during the run, so the figures are noisy: read the ratios to one significant figure."
[ "$variant" = full ] || note="W1–W5 at -benchtime $benchtime, $count rounds. $note"
go run ./cmd/report -out "$dir" -variant "$variant" -note "$note" "$raw"
cp "$raw" "$dir/results.txt"
echo "wrote $dir/RESULTS.md, results.json, results.png and results.txt"
