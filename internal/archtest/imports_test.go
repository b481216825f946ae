// Package archtest checks the direction of imports between the project's
// packages (DESIGN.md §2) on each package's direct imports: a package
// imports only the project packages its row of the table names.
package archtest

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/mcpwire/mcpwire"

// all stands for "every package of the project" in a row of allowed.
const all = "*"

// allowed is DESIGN.md §2's table: for each package, the project packages it
// may import directly. Packages that do not exist yet keep their row so that
// they start out held to it. Packages under internal/ are machinery: anyone
// may import them, and their own imports count as their importer's (see
// check). A package missing from this table is an error: add its row here
// and in DESIGN.md together.
var allowed = map[string][]string{
	"codec":          {},
	"router":         {"codec"},
	"pool":           {},
	"cache":          {"codec"},
	"conn":           {"codec", "router", "pool", "cache"},
	"transport":      {"conn", "codec"},
	"client":         {"conn", "transport"},
	"mcp":            {"conn", "router", "codec", "cache"},
	"mcp/streamable": {"mcp", "transport", "conn", "codec"},
	"metrics":        {"conn", "codec"},
	"middleware":     {"router", "codec", "conn", "transport"},
	// oauth is DESIGN.md §2's "authorization" row: the OAuth 2.1
	// resource server and the client's flows (Authorizer).
	"oauth": {"codec", "router", "conn", "transport", "middleware"},
	// redisstore is DESIGN.md §2's "stores" row: the Redis
	// implementations of the stores of mcp, mcp/streamable, cache and
	// middleware, which define the interfaces.
	"redisstore":     {"mcp", "mcp/streamable", "cache", "middleware", "router", "conn", "codec"},
	"bench":          {all},
	"fuzz":           {all},
	"cmd/loadgen":    {"conn", "transport", "mcp", "mcp/streamable"},
	"cmd/demoserver": {"mcp", "mcp/streamable", "transport"},
	// interop/ holds the interop tests with software nobody here wrote
	// (Node's, driving the built demo server): no Go code of its own.
	"interop": {},
	// interop/conformanceclient is the official conformance suite's
	// "everything client": mcpwire's client through its public API alone
	// (oauth for the authorization scenarios).
	"interop/conformanceclient": {"mcp", "mcp/streamable", "oauth"},
}

// forbiddenStd lists standard library packages a project package must
// not import directly (nor through internal/ packages): package mcp is the
// protocol, whatever carries it; MCP over HTTP is mcp/streamable's
// (DESIGN.md §2).
var forbiddenStd = map[string][]string{
	"mcp": {"net/http"},
}

// until lists edges the code has today that DESIGN.md's table does not, each
// with the reason; remove an entry when its reason goes away.
var until = map[string][]string{
	// cmd/demoserver is a main around internal/demoserver (demoserver.Run),
	// which holds the server so that other programs (cmd/loadgen) can run
	// it in their process (demoserver.Start). An internal package's
	// imports count as its importer's (check): these edges are
	// internal/demoserver's, charged to cmd/demoserver, and to any other
	// importer of it as well.
	// The demo server chooses its sessions' framing (codec.ParseFraming),
	// worker pool (pool) and connection options (conn.Options, the
	// conn.Binder it wraps around mcp.Server's) itself, and serves the
	// JSON-RPC specification's methods as router handlers
	// (mcp.Server.AddPlainMethod takes a router.Handler; get_data and
	// echo answer codec.Raw). It also builds the engine every session
	// shares: a response cache for cached_sleep (cache.New, given to
	// router.MethodOptions.Cache) and, for -metrics, the Prometheus
	// collector put in conn.Options.Metrics (metrics.New), which watches
	// that pool, limit and cache. They go once mcp offers those as options
	// of its own, or DESIGN.md §2 lets an example server import them.
	// -auth-token, -forbid and -rate put package middleware's
	// authentication and rate limit in front of every method
	// (mcp.Server.Use), and its token check in front of the MCP HTTP
	// handlers (middleware.HTTPAuth); the sessions those handlers open are
	// told apart by their conn.Peer. -oauth-issuer puts package oauth's
	// resource server there instead (oauth.Bearer, its verifiers and
	// metadata handler).
	// -redis shares the server's state with other instances through
	// package redisstore (internal/demoserver/redis.go: redisstore.Dial,
	// one Store, applied to the options of the parts it shares). It goes
	// once DESIGN.md §2's cmd/demoserver row lists the stores.
	"cmd/demoserver": {"cache", "codec", "conn", "metrics", "middleware", "oauth", "pool", "redisstore", "router"},
	// The client decides a retry by the JSON-RPC code of an answer
	// (codec.CodeOverloaded, codec.CodeRequestTimeout: the one table of
	// codes is codec's) and data.retryAfterMs (codec.Error), frames its
	// dialed byte streams (codec.Framing, codec.Limits), tells an
	// oversized frame (codec.ErrFrameTooLarge) and encodes params once for
	// every attempt (codec.AppendValue). Its result cache is package
	// cache's Cache: one cache in the project, not a second of its own.
	// These edges go once DESIGN.md §2's client row lists codec, as
	// transport's and mcp's do, and cache.
	"client": {"codec", "cache"},
	// The load generator reads every answer itself, to match it to its
	// request by id and count what is lost, duplicated or unknown: it
	// scans them with codec.Scanner (codec.SkipValue on its fast path),
	// reads error codes with codec.Members, compares -expect in
	// codec.AppendCanonical's form and frames with codec.ParseFraming. It
	// goes once DESIGN.md §2's cmd/loadgen row lists codec.
	// With no target it runs the demo server in process
	// (internal/demoserver.Start), and is charged with what that server
	// imports (see cmd/demoserver's entry): cache, metrics, middleware,
	// oauth, pool, redisstore, router. They go when cmd/demoserver's do.
	"cmd/loadgen": {"codec", "cache", "metrics", "middleware", "oauth", "pool", "redisstore", "router"},
}

// rowOf returns the table row that governs pkg: its own, or examples/… for
// the example servers.
func rowOf(pkg string) (string, bool) {
	if _, ok := allowed[pkg]; ok {
		return pkg, true
	}
	if strings.HasPrefix(pkg, "examples/") {
		return "examples", true
	}
	return "", false
}

func mayImport(pkg, dep string) bool {
	if pkg == "examples" {
		return true // examples/… import anything of the project
	}
	return slices.Contains(allowed[pkg], all) ||
		slices.Contains(allowed[pkg], dep) ||
		slices.Contains(until[pkg], dep)
}

// check returns a line for every direct import in graph that the table does
// not allow. graph maps a package (relative to the module: "codec",
// "internal/x") to the project packages it imports directly. An import of
// an internal/ package is allowed, and the project packages that internal
// package reaches through other internal ones count as direct imports of its
// importer, so internal/ cannot be used to go around the table.
func check(graph map[string][]string) []string {
	var bad []string
	pkgs := make([]string, 0, len(graph))
	for pkg := range graph {
		pkgs = append(pkgs, pkg)
	}
	slices.Sort(pkgs)
	for _, pkg := range pkgs {
		if isInternal(pkg) {
			continue
		}
		row, ok := rowOf(pkg)
		if !ok {
			bad = append(bad, fmt.Sprintf("package %s is not in DESIGN.md §2's table", pkg))
			continue
		}
		for _, dep := range direct(graph, pkg) {
			if !mayImport(row, dep.pkg) {
				bad = append(bad, fmt.Sprintf("%s imports %s%s, which DESIGN.md §2 does not allow", pkg, dep.pkg, dep.via))
			}
		}
	}
	return bad
}

type edge struct{ pkg, via string }

// direct lists the project packages pkg imports, looking through internal/
// packages.
func direct(graph map[string][]string, pkg string) []edge {
	var out []edge
	seen := map[string]bool{pkg: true}
	var walk func(p, via string)
	walk = func(p, via string) {
		for _, dep := range graph[p] {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			if isInternal(dep) {
				walk(dep, via+" via "+dep)
				continue
			}
			out = append(out, edge{dep, via})
		}
	}
	walk(pkg, "")
	return out
}

func isInternal(pkg string) bool {
	return pkg == "internal" || strings.HasPrefix(pkg, "internal/")
}

// importGraph asks go list for every package's direct imports, those of its
// own files and of its in-package test files (which compile into it); the
// external _test packages are clients of the package and may import it
// with anything else.
func importGraph(t *testing.T) map[string][]string {
	return listImports(t, false)
}

// listImports is importGraph, with the standard library's packages too
// when std is set (named as they are: "net/http").
func listImports(t *testing.T, std bool) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}}`, module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := relative(fields[0])
		graph[pkg] = nil
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok && std && !strings.Contains(strings.Split(imp, "/")[0], ".") {
				dep, ok = imp, true
			}
			if ok && !slices.Contains(graph[pkg], dep) {
				graph[pkg] = append(graph[pkg], dep)
			}
		}
	}
	return graph
}

// checkStd returns a line for every import of graph (with the standard
// library's packages) that forbiddenStd forbids, looking through
// internal/ packages as check does.
func checkStd(graph map[string][]string) []string {
	var bad []string
	for pkg, deps := range forbiddenStd {
		if _, ok := graph[pkg]; !ok {
			bad = append(bad, fmt.Sprintf("package %s is not in the import graph", pkg))
			continue
		}
		for _, dep := range direct(graph, pkg) {
			if slices.Contains(deps, dep.pkg) {
				bad = append(bad, fmt.Sprintf("%s imports %s%s, which DESIGN.md §2 does not allow", pkg, dep.pkg, dep.via))
			}
		}
	}
	slices.Sort(bad)
	return bad
}

func relative(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

func TestImports_followTheDesign(t *testing.T) {
	graph := importGraph(t)
	if _, ok := graph["codec"]; !ok {
		t.Fatalf("go list did not list codec: %v", graph)
	}
	for _, line := range check(graph) {
		t.Error(line)
	}
}

func TestImports_mcpHasNoNetHTTP(t *testing.T) {
	for _, line := range checkStd(listImports(t, true)) {
		t.Error(line)
	}
}

func TestCheckStd_reportsNetHTTPInMCP(t *testing.T) {
	graph := map[string][]string{
		"mcp":        {"codec", "internal/h"},
		"internal/h": {"net/http"},
		"codec":      {"strconv"},
	}
	want := []string{"mcp imports net/http via internal/h, which DESIGN.md §2 does not allow"}
	if got := checkStd(graph); !slices.Equal(got, want) {
		t.Errorf("checkStd = %q, want %q", got, want)
	}
	graph["internal/h"] = []string{"strings"}
	if got := checkStd(graph); got != nil {
		t.Errorf("checkStd without net/http = %q, want none", got)
	}
}

func TestCheck_reportsForbiddenDirectImports(t *testing.T) {
	for _, tc := range []struct {
		name  string
		graph map[string][]string
		want  []string
	}{
		{
			name:  "allowed",
			graph: map[string][]string{"codec": nil, "router": {"codec"}, "conn": {"codec", "router", "pool"}, "fuzz": {"conn", "transport"}},
		},
		{
			name:  "codec imports router",
			graph: map[string][]string{"codec": {"router"}, "router": {"codec"}},
			want:  []string{"codec imports router, which DESIGN.md §2 does not allow"},
		},
		{
			// Allowed transitively (transport → conn → router), not directly.
			name:  "transport imports router",
			graph: map[string][]string{"transport": {"conn", "router"}, "conn": {"router"}, "router": nil},
			want:  []string{"transport imports router, which DESIGN.md §2 does not allow"},
		},
		{
			name:  "pool imports codec through internal",
			graph: map[string][]string{"pool": {"internal/a"}, "internal/a": {"internal/b"}, "internal/b": {"codec"}},
			want:  []string{"pool imports codec via internal/a via internal/b, which DESIGN.md §2 does not allow"},
		},
		{
			name:  "unknown package",
			graph: map[string][]string{"util": {"codec"}},
			want:  []string{"package util is not in DESIGN.md §2's table"},
		},
		{
			name:  "examples import anything",
			graph: map[string][]string{"examples/sqlmcp": {"mcp", "cache"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := check(tc.graph); !slices.Equal(got, tc.want) {
				t.Errorf("check = %q, want %q", got, tc.want)
			}
		})
	}
}
