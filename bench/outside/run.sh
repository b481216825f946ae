#!/bin/sh
# run.sh [-out FILE]: the out-of-process section. Each server runs as a
# process of its own on loopback; wrk (C and epoll, written by none of
# the libraries) loads it through check.lua, which gives every call a
# fresh id and checks every answer. Rows:
#
#   OutsideRPC           JSON-RPC over HTTP POST, CONNS connections:
#                        mcpwire (cmd/demoserver's /rpc, echo), its
#                        -fast-rpc (fasthttp), geth (go-ethereum's HTTP
#                        server, cmd/httpecho), floor
#   OutsideToolsCall     Streamable HTTP tools/call of echo, CONNS
#                        connections sharing one session: mcpwire
#                        (cmd/demoserver's /mcp), mcpwire-fasthttp (its
#                        -fast-rpc server's /mcp), mcpwire-json, go-sdk,
#                        go-sdk-json, mcp-go (cmd/httpecho), floor; and
#                        mcpwire-stateless, mcpwire-fasthttp-stateless:
#                        the same /mcp endpoints called under 2026-07-28
#                        (no session; check.lua's mcp-stateless)
#   OutsideToolsCallRoundTrip  the same over one connection, one call at
#                        a time (calls/s is 1/latency)
#
# ROUNDS rounds (default 3), interleaved (every row once, then again), so
# that a burst of load elsewhere lands on every server alike; each run is
# wrk -t THREADS -c CONNS -d DURATION (defaults 2, 16, 5s). Prints one
# line per run in go test -bench's format (BenchmarkOutsideRPC/impl=geth-2
# 1 N calls/s C server-µs/call 0 failures: C is the server process's CPU
# time, user and system, per call answered), appended to FILE with -out
# (../run.sh feeds them to cmd/report), then a table of medians and each
# row's ratios to the best peer. Rows named mcpwire… are mcpwire's;
# "default" marks what a user of each library's defaults gets. floor
# (cmd/httpecho -impl floor) is a baseline, not a peer: fasthttp with
# demoserver's options answering check.lua's calls by byte search, what
# the HTTP stack and the kernel cost per call; the rows of mcpwire and
# floor are never the best peer.
#
# Exits 0 with a message when wrk is missing (1 with MCPWIRE_WRK=required); 1 if any answer was wrong.
# Kills only the servers it started; every wrk run is bounded by timeout.
set -eu
cd "$(dirname "$0")"
out=
while [ $# -gt 0 ]; do
	case $1 in
	-out) out=$2; shift ;;
	*) echo "usage: run.sh [-out FILE]" >&2; exit 2 ;;
	esac
	shift
done
if ! command -v wrk >/dev/null 2>&1; then
	if [ "${MCPWIRE_WRK:-}" = required ]; then
		echo "outside: wrk is not installed (Debian: apt-get install wrk), and MCPWIRE_WRK=required" >&2
		exit 1
	fi
	echo "outside: skipped: wrk is not installed (Debian: apt-get install wrk)" >&2
	exit 0
fi
rounds=${ROUNDS:-3}
threads=${THREADS:-2}
conns=${CONNS:-16}
duration=${DURATION:-5s}
secs=${duration%s}
ncpu=$(nproc)

tmp=$(mktemp -d -t mcpwire-outside.XXXXXX)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	for p in $pids; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

echo "building the servers" >&2
(cd ../.. && go build -o "$tmp/demoserver" ./cmd/demoserver)
(cd .. && go build -o "$tmp/httpecho" ./cmd/httpecho)

# start NAME CMD...: starts CMD with its stderr in $tmp/NAME.log and waits
# (at most 10 s) for its first http:// URL there, left in $url (its pid
# in $pid).
start() {
	name=$1
	shift
	"$@" 2>"$tmp/$name.log" &
	pid=$!
	pids="$pids $pid"
	i=0
	url=
	while [ -z "$url" ]; do
		i=$((i + 1))
		if [ "$i" -gt 100 ]; then
			echo "outside: $name did not start:" >&2
			cat "$tmp/$name.log" >&2
			exit 1
		fi
		sleep 0.1
		url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/$name.log" | head -n 1 || true)
	done
}

# session URL: initialize an MCP session at URL (notifications/initialized
# too) and print its Mcp-Session-Id, "-" if the server issued none.
session() {
	hdr="$tmp/headers"
	curl -sS --max-time 10 -D "$hdr" -o "$tmp/init" -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' \
		-d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}' "$1"
	if ! grep -q '"protocolVersion":"2025-11-25"' "$tmp/init"; then
		echo "outside: initialize at $1 failed:" >&2
		cat "$hdr" "$tmp/init" >&2
		exit 1
	fi
	sid=$(tr -d '\r' <"$hdr" | awk 'tolower($1) == "mcp-session-id:" { print $2 }')
	set -- "$1" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -H 'Mcp-Protocol-Version: 2025-11-25'
	[ -z "$sid" ] || set -- "$@" -H "Mcp-Session-Id: $sid"
	code=$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "$@" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}')
	if [ "$code" != 202 ]; then
		echo "outside: notifications/initialized at $1: status $code" >&2
		exit 1
	fi
	echo "${sid:--}"
}

# The servers, each started once. demoserver serves /rpc, /mcp and -fast-rpc.
start mcpwire "$tmp/demoserver" -listen http://127.0.0.1:0 -fast-rpc 127.0.0.1:0
demo=$url
demopid=$pid
fast=$(grep -o 'fastrpc=http://[^ ]*' "$tmp/mcpwire.log" | head -n 1 | cut -d= -f2)
if [ -z "$fast" ]; then
	echo "outside: demoserver logged no fastrpc= URL" >&2
	exit 1
fi
# rows: workload impl default(yes/no) connections server's-pid URL
# check.lua's arguments
rows=$tmp/rows
{
	echo "OutsideRPC mcpwire yes $conns $demopid $demo/rpc rpc-array echo"
	echo "OutsideRPC mcpwire-fasthttp no $conns $demopid $fast rpc-array echo"
}>"$rows"
for impl in geth mcpwire-json go-sdk go-sdk-json mcp-go floor; do
	start "$impl" "$tmp/httpecho" -impl "$impl"
	v=$(echo "$impl" | tr - _)
	eval "url_$v=\$url pid_$v=\$pid"
done
{
	echo "OutsideRPC geth yes $conns $pid_geth $url_geth/ rpc test_echo"
	echo "OutsideRPC floor no $conns $pid_floor $url_floor/rpc rpc-array echo"
}>>"$rows"
for impl in mcpwire mcpwire-fasthttp mcpwire-json go-sdk go-sdk-json mcp-go floor; do
	v=$(echo "$impl" | tr - _)
	case $impl in
	mcpwire) u=$demo/mcp; p=$demopid; def=yes ;;
	mcpwire-fasthttp) u=${fast%/rpc}/mcp; p=$demopid; def=no ;;
	*) eval "u=\$url_$v/mcp p=\$pid_$v"; def=yes ;;
	esac
	case $impl in *-json | floor) def=no ;; esac
	sid=$(session "$u")
	echo "OutsideToolsCall $impl $def $conns $p $u mcp $sid" >>"$rows"
	echo "OutsideToolsCallRoundTrip $impl $def 1 $p $u mcp $sid" >>"$rows"
done
for impl in mcpwire mcpwire-fasthttp; do
	case $impl in
	mcpwire) u=$demo/mcp def=yes ;;
	*) u=${fast%/rpc}/mcp def=no ;;
	esac
	echo "OutsideToolsCall $impl-stateless $def $conns $demopid $u mcp-stateless" >>"$rows"
	echo "OutsideToolsCallRoundTrip $impl-stateless $def 1 $demopid $u mcp-stateless" >>"$rows"
done

# cputicks PID: the user and system CPU time PID has used, in clock ticks.
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tick=$(getconf CLK_TCK)

raw=$tmp/raw
: >"$raw"
failed=0
r=0
while [ "$r" -lt "$rounds" ]; do
	r=$((r + 1))
	echo "round $r of $rounds" >&2
	while read -r wl impl def c p u args; do
		t=$threads
		[ "$c" -ge "$t" ] || t=$c
		before=$(cputicks "$p")
		# shellcheck disable=SC2086 # args are words
		res=$(timeout $((secs + 20)) wrk -t "$t" -c "$c" -d "$duration" --timeout 5s -s check.lua "$u" -- $args </dev/null | grep '^RESULT' || true)
		after=$(cputicks "$p")
		if [ -z "$res" ]; then
			echo "outside: $wl/$impl: wrk printed no result" >&2
			failed=1
			continue
		fi
		rate=$(echo "$res" | sed 's/.*calls\/s=\([0-9]*\).*/\1/')
		bad=$(echo "$res" | sed 's/.*failures=\([0-9]*\).*/\1/')
		if [ "$bad" != 0 ]; then
			echo "outside: $wl/$impl: $res" >&2
			failed=1
		fi
		# -NCPU: the suffix go test -bench puts there (GOMAXPROCS), which
		# benchout strips
		n=$(echo "$res" | sed 's/.*answered=\([0-9]*\).*/\1/')
		# the server's CPU time (user and system) per call answered
		cpu=$(awk -v d=$((after - before)) -v t="$tick" -v n="$n" 'BEGIN { printf "%.2f", (n > 0 ? d / t * 1e6 / n : 0) }')
		line="Benchmark$wl/impl=$impl-$ncpu 1 $rate calls/s $cpu server-µs/call $bad failures"
		echo "$line" | tee -a "$raw"
	done <"$rows"
done
[ -z "$out" ] || cat "$raw" >>"$out"

echo
echo "wrk -t $threads -c $conns (round trip: -c 1) -d $duration, $rounds rounds, medians. vs best: the row's calls/s over the best peer's;"
echo "server µs/call: the server's CPU time per call (wrk and the server share the cores); vs best: the best peer's over the row's"
echo "floor: a baseline, not a peer (fasthttp answering by byte search): what the HTTP stack and the kernel cost per call"
awk -v rowsfile="$rows" '
BEGIN { while ((getline l < rowsfile) > 0) { split(l, f, " "); def[f[1] "/" f[2]] = f[3] } }
{
	split($1, p, "/impl="); wl = substr(p[1], 10); sub(/-[0-9]+$/, "", p[2]); k = wl "/" p[2]
	if (!(k in n)) { order[++nk] = k; if (!(wl in seen)) { seen[wl] = 1; wls[++nw] = wl } }
	n[k]++; rate[k, n[k]] = $3; cpu[k, n[k]] = $5
}
function median(v, k,   i, j, t, m, a) {
	m = n[k]
	for (i = 1; i <= m; i++) a[i] = v[k, i]
	for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
	for (i = 1; i <= nk; i++) {
		k = order[i]; med[k] = median(rate, k); mcpu[k] = median(cpu, k); split(k, p, "/")
		if (p[2] !~ /^mcpwire/ && p[2] != "floor" && med[k] > best[p[1]]) { best[p[1]] = med[k]; bestName[p[1]] = p[2] }
	}
	printf "%-26s %-17s %-8s %10s %8s %14s %8s\n", "workload", "impl", "default", "calls/s", "vs best", "server µs/call", "vs best"
	for (w = 1; w <= nw; w++) {
		bk = wls[w] "/" bestName[wls[w]]
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, p, "/")
			if (p[1] == wls[w]) printf "%-26s %-17s %-8s %10.0f %7.2fx %14.1f %7.2fx\n", p[1], p[2], def[k], med[k], med[k] / best[p[1]], mcpu[k], (mcpu[k] > 0 ? mcpu[bk] / mcpu[k] : 0)
		}
	}
	for (w = 1; w <= nw; w++) printf "best peer of %s: %s\n", wls[w], bestName[wls[w]]
}' "$raw"
if [ "$failed" != 0 ]; then
	echo "outside: some answers were wrong (see above)" >&2
	exit 1
fi
