package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// listenPeer is a client of a server's session that records every
// notification it receives, as "method params".
type listenPeer struct {
	c     *conn.Conn
	notes chan string
	end   func() // ends the server's session gracefully (Shutdown)
}

func newListenPeer(t *testing.T, srv *mcp.Server, transport string) *listenPeer {
	t.Helper()
	p := &listenPeer{notes: make(chan string, 64)}
	r := router.New()
	for _, m := range []string{"notifications/subscriptions/acknowledged", "notifications/tools/list_changed",
		"notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated"} {
		must(t, r.Register(m, router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
			p.notes <- m + " " + string(req.Params)
			return nil, nil
		}), &router.MethodOptions{Inline: true}))
	}
	p.c, p.end = connectPeer(t, srv, transport, r)
	return p
}

// next returns the next notification, failing after 10 s.
func (p *listenPeer) next(t *testing.T) string {
	t.Helper()
	select {
	case n := <-p.notes:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no notification came")
		return ""
	}
}

// listen opens a subscription with this filter; its answer, when the
// server ends it, comes on the channel returned.
func (p *listenPeer) listen(filter string) <-chan string {
	res := make(chan string, 1)
	go func() {
		raw, err := p.c.CallRaw(context.Background(), "subscriptions/listen",
			codec.Raw(`{"_meta":`+modernMeta(`{}`)+`,"notifications":`+filter+`}`))
		if err != nil {
			res <- "error " + err.Error()
			return
		}
		res <- string(raw)
	}()
	return res
}

// A subscription is acknowledged first with what the server honours, then
// carries the list changes and resource updates it asked for — each
// tagged with its id — and nothing else; a Shutdown ends it with an
// answer tagged the same way.
func TestListen_carriesWhatItAskedForUntilTheServerEndsIt(t *testing.T) {
	for _, transport := range []string{"stdio", "inprocess"} {
		t.Run(transport, func(t *testing.T) {
			srv := statelessServer(t)
			p := newListenPeer(t, srv, transport)
			answer := p.listen(`{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}`)
			const id = `{"io.modelcontextprotocol/subscriptionId":1}`
			want := `notifications/subscriptions/acknowledged {"_meta":` + id +
				`,"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}}`
			if got := p.next(t); got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			ctx := context.Background()
			must(t, srv.ResourceUpdated(ctx, "file:///b")) // not asked for
			must(t, srv.AddPrompt(&mcp.Prompt{Name: "q"}, promptQ))
			must(t, srv.ResourceUpdated(ctx, "file:///a"))
			if got, want := p.next(t), `notifications/resources/updated {"_meta":`+id+`,"uri":"file:///a"}`; got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			must(t, srv.AddTool(&mcp.Tool{Name: "new"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return textResult("new"), nil
			}))
			if got, want := p.next(t), `notifications/tools/list_changed {"_meta":`+id+`}`; got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
			p.end()
			select {
			case got := <-answer:
				if !strings.Contains(got, `"resultType":"complete"`) || !strings.Contains(got, `"io.modelcontextprotocol/subscriptionId":1`) {
					t.Fatalf("answer %s", got)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Shutdown did not end the subscription")
			}
			select {
			case n := <-p.notes:
				t.Fatalf("unasked for: %s", n)
			default:
			}
		})
	}
}

// Two subscriptions on one connection each get their own notifications,
// tagged with their own ids; one the client cancels gets no answer, and
// no more notifications.
func TestListen_subscriptionsAreApartAndEndWhenCancelled(t *testing.T) {
	srv := statelessServer(t)
	p := newListenPeer(t, srv, "inprocess")
	tools := p.listen(`{"toolsListChanged":true}`) // id 1
	if got := p.next(t); !strings.Contains(got, `subscriptionId":1}`) {
		t.Fatalf("first acknowledgement %s", got)
	}
	res := p.listen(`{"resourceSubscriptions":["file:///a"],"promptsListChanged":true}`) // id 2
	if got := p.next(t); !strings.Contains(got, `subscriptionId":2}`) || !strings.Contains(got, `"promptsListChanged":true`) {
		t.Fatalf("second acknowledgement %s", got)
	}
	must(t, srv.ResourceUpdated(context.Background(), "file:///a"))
	if got, want := p.next(t), `notifications/resources/updated {"_meta":{"io.modelcontextprotocol/subscriptionId":2},"uri":"file:///a"}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	must(t, p.c.Notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": 1}))
	must(t, srv.AddTool(&mcp.Tool{Name: "new"}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("new"), nil
	}))
	must(t, srv.AddPrompt(&mcp.Prompt{Name: "q"}, promptQ))
	// The prompts change reaches subscription 2; had 1 been open still,
	// its tools change would have been queued first, on its own.
	got := p.next(t)
	if got != `notifications/prompts/list_changed {"_meta":{"io.modelcontextprotocol/subscriptionId":2}}` {
		t.Fatalf("got %s", got)
	}
	// In process, a request its server settles without an answer fails
	// the call with ErrNoAnswer.
	if a := <-tools; a != "error "+conn.ErrNoAnswer.Error() {
		t.Fatalf("a cancelled subscription was answered: %s", a)
	}
	select {
	case n := <-p.notes:
		t.Fatalf("after the cancel: %s", n)
	case <-time.After(50 * time.Millisecond):
	}
	p.end()
	if a := <-res; !strings.Contains(a, `"io.modelcontextprotocol/subscriptionId":2`) {
		t.Fatalf("answer %s", a)
	}
}

// subscriptions/listen is a method of the stateless versions: a session of
// the older ones is refused it.
func TestListen_refusedUnderTheOlderVersions(t *testing.T) {
	srv := statelessServer(t)
	p := newListenPeer(t, srv, "inprocess")
	_, err := p.c.CallRaw(context.Background(), "subscriptions/listen", codec.Raw(`{"notifications":{}}`))
	var e *codec.Error
	if !errors.As(err, &e) || e.Code != codec.CodeInvalidParams {
		t.Fatalf("got %v", err)
	}
}

func promptQ(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Q"}}}}, nil
}
