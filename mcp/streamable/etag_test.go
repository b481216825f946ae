package streamable_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/mcpwire/mcpwire/mcp"
)

// modernParams are the params of a 2026-07-28 request with these members
// besides _meta.
func modernParams(members string) string {
	p := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if members != "" {
		p += "," + members
	}
	return p + "}"
}

// answer is a POST's response as the caching tests see it.
type answer struct {
	status        int
	body          string
	etag, control string
}

func postFor(t *testing.T, p *rawHTTP, id int, method, members string, hdr ...string) answer {
	t.Helper()
	resp := p.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, modernParams(members)), hdr...)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, string(b), resp.Header.Get("ETag"), resp.Header.Get("Cache-Control")}
}

var strongTag = regexp.MustCompile(`^"[0-9a-f]{16}"$`)

// TestHTTP_cacheableResultsCarryCacheControlAndETag checks, on both
// servers and through both ways a JSON answer goes out (a client that
// accepts only JSON, one that accepts an event stream too): a cacheable
// result of 2026-07-28 carries Cache-Control from its hints and a strong
// ETag, the XXH64 of the result alone, the same for the same result
// whatever the request's id, another for another result; a matching
// If-None-Match (the tag, W/ the tag, one of a list, or *) is answered
// 304 with the same headers and no body, any other 200 with the result;
// a change of the list changes the tag. Other answers carry neither
// header, and If-None-Match does not apply to them.
func TestHTTP_cacheableResultsCarryCacheControlAndETag(t *testing.T) {
	onBothServers(t, func(t *testing.T, serveHTTP serveFunc) {
		for _, accept := range []string{"application/json", "application/json, text/event-stream"} {
			t.Run("accept="+accept, func(t *testing.T) {
				srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, &mcp.ServerOptions{Caching: &mcp.CachingOptions{
					Tools: &mcp.CacheHint{TTL: 90*time.Second + 999*time.Millisecond, Scope: mcp.CachePublic},
				}})
				echo := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				}
				must(t, srv.AddTool(&mcp.Tool{Name: "echo"}, echo))
				must(t, srv.AddResource(&mcp.Resource{URI: "file:///a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{Text: "A"}}}, nil
				}))
				ts, _ := serveHTTP(t, srv, nil)
				p := newRawHTTP(t, ts.URL)
				p.initialize(mcp.LatestVersion)
				post := func(id int, method, members string, hdr ...string) answer {
					return postFor(t, p, id, method, members, append([]string{"Accept", accept}, hdr...)...)
				}

				list := post(1, "tools/list", "")
				if list.status != http.StatusOK || !strongTag.MatchString(list.etag) || list.control != "public, max-age=90" {
					t.Fatalf("tools/list: %+v", list)
				}
				result := strings.TrimSuffix(strings.TrimPrefix(list.body, `{"jsonrpc":"2.0","id":1,"result":`), "}")
				if want := fmt.Sprintf(`"%016x"`, xxhash.Sum64String(result)); list.etag != want {
					t.Fatalf("ETag %s, want XXH64 of the result %s", list.etag, want)
				}
				if again := post(2, "tools/list", ""); again.status != http.StatusOK || again.etag != list.etag ||
					!strings.HasPrefix(again.body, `{"jsonrpc":"2.0","id":2,"result":`) {
					t.Fatalf("tools/list again: %+v, want ETag %s", again, list.etag)
				}
				read := post(3, "resources/read", `"uri":"file:///a"`)
				if read.status != http.StatusOK || !strongTag.MatchString(read.etag) || read.etag == list.etag || read.control != "private, max-age=0" {
					t.Fatalf("resources/read: %+v", read)
				}

				for _, inm := range []string{list.etag, "W/" + list.etag, `"0000000000000000", ` + list.etag, "*"} {
					nm := post(4, "tools/list", "", "If-None-Match", inm)
					if nm.status != http.StatusNotModified || nm.body != "" || nm.etag != list.etag || nm.control != list.control {
						t.Fatalf("If-None-Match %s: %+v", inm, nm)
					}
				}
				if other := post(5, "tools/list", "", "If-None-Match", read.etag); other.status != http.StatusOK || other.etag != list.etag ||
					!strings.Contains(other.body, `"tools":[`) {
					t.Fatalf("If-None-Match of another result: %+v", other)
				}

				must(t, srv.AddTool(&mcp.Tool{Name: "echo2"}, echo))
				if changed := post(6, "tools/list", "", "If-None-Match", list.etag); changed.status != http.StatusOK ||
					!strongTag.MatchString(changed.etag) || changed.etag == list.etag || !strings.Contains(changed.body, `"echo2"`) {
					t.Fatalf("after the list changed: %+v", changed)
				}

				call := post(7, "tools/call", `"name":"echo"`, "If-None-Match", "*")
				if call.status != http.StatusOK || call.etag != "" || call.control != "" || !strings.Contains(call.body, `"result"`) {
					t.Fatalf("tools/call: %+v", call)
				}
				missing := post(8, "resources/read", `"uri":"file:///none"`, "If-None-Match", "*")
				if missing.status != http.StatusOK || missing.etag != "" || !strings.Contains(missing.body, `"error"`) {
					t.Fatalf("an error: %+v", missing)
				}
				resp := p.post(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, "Accept", accept, "If-None-Match", "*")
				old := readEvents(t, resp)
				if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != "" || len(old) != 1 || strings.Contains(old[0].data, "ttlMs") {
					t.Fatalf("tools/list of the session's version (2025-11-25): %d %v %+v", resp.StatusCode, resp.Header, old)
				}
			})
		}
	})
}
