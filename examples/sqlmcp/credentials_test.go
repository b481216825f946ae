package main

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"strings"
	"testing"
)

// Errors a model can act on, and credentials nowhere: a database that
// refuses the password, or is not there, makes tool errors with the
// database's message and code, never a crash or a protocol error, and
// the password appears in no answer and no log line.

func TestCredentials_neverShown(t *testing.T) {
	for _, kind := range []string{"mariadb", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			s := server(t, kind)
			good := s.DSNFor(map[string]string{"postgres": "postgres", "mariadb": "mysql"}[kind])
			wrong := "W" + rand.Text()
			bad := strings.Replace(good, s.Password, wrong, 1)
			want := map[string]string{
				"postgres": "postgres error 28P01 (SQLSTATE): password authentication failed",
				"mariadb":  "mysql error 1045 (SQLSTATE 28000): Access denied",
			}[kind]

			// The wrong password: every tool says why, without it.
			p := startStdio(t, "-dsn", bad, "-v")
			var answers []string
			for _, c := range []struct {
				tool string
				args any
			}{
				{"sql_query", map[string]string{"sql": "SELECT 1"}},
				{"list_tables", nil},
				{"describe_table", map[string]string{"table": "orders"}},
			} {
				answers = append(answers, toolError(t, call(t, p.ClientSession, c.tool, c.args), want))
			}
			_, err := p.ReadResource(context.Background(), tablesURI)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("reading %s: %v; want the database's refusal", tablesURI, err)
			} else {
				answers = append(answers, err.Error())
			}
			p.Close()
			checkNoSecret(t, wrong, append(answers, p.stderr.String())...)
			if !strings.Contains(p.stderr.String(), "the database does not answer") {
				t.Errorf("no warning logged at the start:\n%s", p.stderr)
			}

			// The right one: a failing statement and the whole log (-v)
			// hold no password either.
			p = startStdio(t, "-dsn", good, "-v")
			msg := toolError(t, call(t, p.ClientSession, "sql_query", map[string]string{"sql": "SELECT * FROM nowhere"}), "nowhere")
			p.Close()
			if !strings.Contains(p.stderr.String(), "SELECT * FROM nowhere") {
				t.Errorf("-v did not log the call:\n%s", p.stderr)
			}
			checkNoSecret(t, s.Password, msg, p.stderr.String())
		})
	}
}

func TestCredentials_missingSQLiteFile(t *testing.T) {
	p := startStdio(t, "-dsn", "sqlite:"+filepath.Join(t.TempDir(), "missing.db"))
	toolError(t, call(t, p.ClientSession, "sql_query", map[string]string{"sql": "SELECT 1"}), "sqlite error 14:", "unable to open database file")
}

// checkNoSecret fails if secret is in any of texts.
func checkNoSecret(t *testing.T, secret string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, secret) {
			t.Errorf("the password %q is shown in:\n%s", secret, s)
		}
	}
}

func TestParseDSN(t *testing.T) {
	for _, tc := range []struct {
		dsn, kind, display, err string
	}{
		{dsn: "sqlite:/tmp/x.db", kind: "sqlite", display: "sqlite:/tmp/x.db"},
		{dsn: "sqlite:///tmp/x.db", kind: "sqlite", display: "sqlite:/tmp/x.db"},
		{dsn: "mysql://u:hunter2@db:3307/shop?tls=skip-verify", kind: "mysql", display: "mysql://u:xxxxx@db:3307/shop?tls=skip-verify"},
		{dsn: "mariadb://u:p%40ss@localhost/shop?socket=/run/mysqld/mysqld.sock", kind: "mysql", display: "mariadb://u:xxxxx@localhost/shop?socket=/run/mysqld/mysqld.sock"},
		{dsn: "postgres://u:hunter2@db/shop?sslmode=disable", kind: "postgres", display: "postgres://u:xxxxx@db/shop?sslmode=disable"},
		{dsn: "postgresql://u@db/shop?password=hunter2", kind: "postgres", display: "postgresql://u@db/shop?password=xxxxx"},
		{dsn: "mysql://u:hunter2@db/%zz", err: "-dsn mysql: invalid URL escape"},
		{dsn: "postgres://u:hunter2@db/shop?sslmode=bogus", err: "-dsn postgres: "},
		{dsn: "oracle://u:hunter2@db/shop", err: `unknown database "oracle"`},
		{dsn: "shop.db", err: "want sqlite:PATH"},
		{dsn: "sqlite:", err: "the path is missing"},
	} {
		tg, err := parseDSN(tc.dsn)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("%s: error %v, want one saying %q without the password", tc.dsn, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.dsn, err)
			continue
		}
		if tg.kind != tc.kind || tg.display != tc.display {
			t.Errorf("%s: kind %s, display %s; want %s, %s", tc.dsn, tg.kind, tg.display, tc.kind, tc.display)
		}
		if strings.Contains(tg.scrub("error: "+tc.dsn), "hunter2") {
			t.Errorf("%s: scrub leaves the password", tc.dsn)
		}
	}
	tg, _ := parseDSN("mariadb://u:p%40ss@localhost/shop?socket=/run/mysqld/mysqld.sock")
	if c := tg.mysql; c.Net != "unix" || c.Addr != "/run/mysqld/mysqld.sock" || c.Passwd != "p@ss" || c.DBName != "shop" || c.MultiStatements || c.InterpolateParams {
		t.Errorf("mysql config %+v", c)
	}
}
