package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/examples/sqlmcp/internal/dbserver"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// The tests drive the built command as MCP clients do (over stdio and
// Streamable HTTP), against the embedded SQLite and, when this machine
// has them, a real MariaDB and a real PostgreSQL server started here.
// SQLMCP_DATABASES=required makes a server that cannot start a failure
// rather than a skip (scripts/test sets it, after installing them).

func TestMain(m *testing.M) { testproc.Main(m, stopServers, sqlmcp.Remove) }

// sqlmcp is the command, built for these tests.
var sqlmcp = testproc.NewBinary("github.com/mcpwire/mcpwire/examples/sqlmcp")

// binary returns the built command.
func binary(t testing.TB) string { return sqlmcp.Path(t) }

// servers are the database servers the tests started, one of each kind
// at most, stopped by TestMain.
var servers = struct {
	sync.Mutex
	m map[string]*started
}{m: map[string]*started{}}

type started struct {
	s   *dbserver.Server
	err error
}

// server returns the running server of kind ("postgres" or "mariadb"),
// starting it the first time. It skips the test when the server cannot
// start, or fails it under SQLMCP_DATABASES=required.
func server(t testing.TB, kind string) *dbserver.Server {
	t.Helper()
	servers.Lock()
	st, ok := servers.m[kind]
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		start := time.Now()
		st = &started{}
		switch kind {
		case "postgres":
			st.s, st.err = dbserver.StartPostgres(ctx)
		case "mariadb":
			st.s, st.err = dbserver.StartMariaDB(ctx)
		}
		cancel()
		if st.err == nil {
			t.Logf("%s started in %v", kind, time.Since(start).Round(time.Millisecond))
		}
		servers.m[kind] = st
	}
	servers.Unlock()
	if st.err != nil {
		if os.Getenv("SQLMCP_DATABASES") == "required" {
			t.Fatalf("%s: %v (SQLMCP_DATABASES=required)", kind, st.err)
		}
		t.Skipf("%s cannot start here, skipping (install Debian's postgresql and mariadb-server; SQLMCP_DATABASES=required makes this a failure): %v", kind, st.err)
	}
	return st.s
}

// stopServers stops the servers the tests started, each by its pid.
func stopServers() {
	servers.Lock()
	defer servers.Unlock()
	for kind, st := range servers.m {
		if st.s == nil {
			continue
		}
		sig := syscall.SIGTERM
		if kind == "postgres" {
			sig = syscall.SIGINT // fast shutdown
		}
		if err := st.s.Stop(sig); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
}
