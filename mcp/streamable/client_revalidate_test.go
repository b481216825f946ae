package streamable_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
)

// statusRecorder records the status of every answer a handler writes.
type statusRecorder struct {
	http.ResponseWriter
	mu   *sync.Mutex
	seen *[]int
}

func (r statusRecorder) WriteHeader(code int) {
	r.mu.Lock()
	*r.seen = append(*r.seen, code)
	r.mu.Unlock()
	r.ResponseWriter.WriteHeader(code)
}

// Go client and Go server under 2026-07-28 over Streamable HTTP: a list
// asked again carries the ETag of its last answer in If-None-Match and
// is answered 304 with no body, which the client answers from the result
// it kept; once the list has changed, the server's answer is whole again,
// with another tag.
func TestClient_revalidatesWithIfNoneMatch(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, nil)
	must(t, addEcho(srv))
	h := streamable.NewHandler(srv, nil)
	var mu sync.Mutex
	var statuses []int
	var conditional []string // If-None-Match of each tools/list POST
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tools/list" {
			mu.Lock()
			conditional = append(conditional, r.Header.Get("If-None-Match"))
			mu.Unlock()
			w = statusRecorder{ResponseWriter: w, mu: &mu, seen: &statuses}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		h.Close()
		ts.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs := connectHTTP(t, ts.URL, mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: mcp.Version20260728}))
	names := func() []string {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, tool := range res.Tools {
			n = append(n, tool.Name)
		}
		return n
	}
	first, again := names(), names()
	if len(first) != 1 || len(again) != 1 || again[0] != first[0] {
		t.Fatalf("tools %v, then %v", first, again)
	}
	must(t, srv.AddTool(&mcp.Tool{Name: "later"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	}))
	if changed := names(); len(changed) != 2 {
		t.Fatalf("after a tool was added: %v", changed)
	}
	if after := names(); len(after) != 2 {
		t.Fatalf("asked again: %v", after)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []int{http.StatusOK, http.StatusNotModified, http.StatusOK, http.StatusNotModified}
	if len(statuses) != len(want) || len(conditional) != len(want) {
		t.Fatalf("statuses %v, If-None-Match %q: want %v", statuses, conditional, want)
	}
	for i := range want {
		if statuses[i] != want[i] {
			t.Errorf("tools/list #%d: status %d, want %d (all: %v)", i+1, statuses[i], want[i], statuses)
		}
	}
	if conditional[0] != "" || conditional[1] == "" || conditional[2] != conditional[1] || conditional[3] == conditional[2] || conditional[3] == "" {
		t.Errorf("If-None-Match of the four lists: %q", conditional)
	}
}
