package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/mcp"
)

// elicitServer has three tools: "connect" asks for a URL mode
// elicitation and, once accepted, says it completed (and, first, that an
// unknown one did); "form" asks for a form; "needs_auth" fails with
// -32042 naming the elicitation id its "id" argument gives.
func elicitServer(t *testing.T) *mcp.Server {
	srv := mcp.NewServer(nil, nil)
	must(t, srv.AddTool(&mcp.Tool{Name: "connect"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, ElicitationID: "e1",
			URL: "https://example.com/connect?e=e1", Message: "Connect your account"})
		if err != nil {
			return nil, err
		}
		if r.Action == mcp.ElicitAccept {
			must(t, req.Session.NotifyElicitationComplete(ctx, "unknown"))
			must(t, req.Session.NotifyElicitationComplete(ctx, "e1"))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "action=" + r.Action}}}, nil
	}))
	must(t, srv.AddTool(&mcp.Tool{Name: "form"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Sure?"})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "action=" + r.Action}}}, nil
	}))
	type idArgs struct {
		ID string `json:"id"`
	}
	must(t, mcp.AddTool(srv, &mcp.Tool{Name: "needs_auth"}, func(_ context.Context, _ *mcp.CallToolRequest, in idArgs) (*mcp.CallToolResult, any, error) {
		return nil, nil, mcp.URLElicitationRequired("", &mcp.ElicitParams{ElicitationID: in.ID,
			URL: "https://example.com/auth?e=" + in.ID, Message: "Authorize Example Co"})
	}))
	// needs_auth_early says the elicitation completed before it fails
	// naming it: on the wire the completion comes first.
	must(t, mcp.AddTool(srv, &mcp.Tool{Name: "needs_auth_early"}, func(ctx context.Context, req *mcp.CallToolRequest, in idArgs) (*mcp.CallToolResult, any, error) {
		must(t, req.Session.NotifyElicitationComplete(ctx, in.ID))
		return nil, nil, mcp.URLElicitationRequired("", &mcp.ElicitParams{ElicitationID: in.ID,
			URL: "https://example.com/auth?e=" + in.ID, Message: "Authorize Example Co"})
	}))
	return srv
}

func TestElicitURL_acceptedAndCompleted(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv := elicitServer(t)
			asked := make(chan *mcp.ElicitParams, 1)
			completed := make(chan string, 4)
			marks := make(chan struct{}, 1)
			c := mcp.NewClient(nil, &mcp.ClientOptions{
				// URL mode's completion notification, and the server's
				// sessions it is sent on, are of 2025-11-25 (2026-07-28
				// removed both).
				ProtocolVersion: mcp.LatestVersion,
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
				},
				URLElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked <- req.Params
					return &mcp.ElicitResult{Action: mcp.ElicitAccept}, nil
				},
				ElicitationCompleteHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteParams) {
					completed <- p.ElicitationID
				},
				LoggingMessageHandler: markHandler(marks),
			})
			cs := tr.connect(t, srv, c)
			ctx := ctx10(t)
			ec := srv.Sessions()[0].ClientCapabilities().Elicitation
			if ec.Form == nil || ec.URL == nil || !ec.SupportsForm() || !ec.SupportsURL() {
				t.Fatalf("declared %+v", ec)
			}
			res, err := cs.CallTool(ctx, "connect", nil)
			if err != nil || firstTextOf(res) != "action=accept" {
				t.Fatalf("%+v, %v", res, err)
			}
			p := <-asked
			if p.Mode != "url" || p.ElicitationID != "e1" || p.URL != "https://example.com/connect?e=e1" || p.Message != "Connect your account" || p.RequestedSchema != nil {
				t.Fatalf("asked %+v", p)
			}
			// Only the elicitation the client accepted is passed on: not
			// "unknown", and "e1" once.
			if id := <-completed; id != "e1" {
				t.Fatalf("completed %q", id)
			}
			must(t, srv.Sessions()[0].NotifyElicitationComplete(ctx, "e1"))
			// The form handler still serves form mode.
			if res, err := cs.CallTool(ctx, "form", nil); err != nil || firstTextOf(res) != "action=decline" {
				t.Fatalf("%+v, %v", res, err)
			}
			noMoreCompletions(t, srv.Sessions()[0], marks, completed)
		})
	}
}

// urlOnlyClient serves URL mode elicitation only (and cancels it), sends
// the elicitations it hears have completed to completed, and the log
// messages it receives to marks (markHandler).
func urlOnlyClient(completed chan<- string, marks chan<- struct{}) *mcp.Client {
	return mcp.NewClient(nil, &mcp.ClientOptions{
		// URL mode's completion notification, and the server's sessions
		// it is sent on, are of 2025-11-25 (2026-07-28 removed both).
		ProtocolVersion: mcp.LatestVersion,
		URLElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitCancel}, nil
		},
		ElicitationCompleteHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ElicitationCompleteParams) {
			completed <- p.ElicitationID
		},
		LoggingMessageHandler: markHandler(marks),
	})
}

// markHandler is a LoggingMessageHandler that sends each message it
// receives to marks.
func markHandler(marks chan<- struct{}) func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageParams) {
	return func(context.Context, *mcp.ClientSession, *mcp.LoggingMessageParams) { marks <- struct{}{} }
}

// noMoreCompletions checks that no completion is on its way to the
// client. ss sends a log message after the completions it sent, on the
// same stream, and the client runs notifications in order on its reader:
// once the message (the mark) is received, every completion sent before
// it has been received too, and passed on or dropped.
func noMoreCompletions(t *testing.T, ss *mcp.ServerSession, marks <-chan struct{}, completed <-chan string) {
	t.Helper()
	must(t, ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: mcp.LevelEmergency, Data: "mark"}))
	select {
	case <-marks:
	case <-time.After(10 * time.Second):
		t.Fatal("the mark sent after the completions never came")
	}
	select {
	case id := <-completed:
		t.Fatalf("completed %q again", id)
	default:
	}
}

func TestElicitURL_requiredErrorThenCompleted(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv := elicitServer(t)
			completed := make(chan string, 4)
			marks := make(chan struct{}, 1)
			c := urlOnlyClient(completed, marks)
			cs := tr.connect(t, srv, c)
			ctx := ctx10(t)
			ec := srv.Sessions()[0].ClientCapabilities().Elicitation
			if ec.Form != nil || ec.URL == nil || ec.SupportsForm() {
				t.Fatalf("declared %+v", ec)
			}
			for _, id := range []string{"e2", "e3"} {
				_, err := cs.CallTool(ctx, "needs_auth", map[string]string{"id": id})
				if !isCode(err, codec.CodeURLElicitationRequired) {
					t.Fatalf("got %v, want -32042", err)
				}
				els := mcp.URLElicitations(err)
				if len(els) != 1 || els[0].Mode != "url" || els[0].ElicitationID != id ||
					els[0].URL != "https://example.com/auth?e="+id || els[0].Message != "Authorize Example Co" {
					t.Fatalf("elicitations %+v", els)
				}
			}
			ss := srv.Sessions()[0]
			for _, id := range []string{"e2", "e2", "e9", "e3"} {
				must(t, ss.NotifyElicitationComplete(ctx, id))
			}
			for _, want := range []string{"e2", "e3"} {
				if id := <-completed; id != want {
					t.Fatalf("completed %q, want %q", id, want)
				}
			}
			// A completion that reaches the client before the error naming
			// its elicitation (the reader reads both; the caller sees the
			// error later) is passed on, once, when the error arrives.
			if _, err := cs.CallTool(ctx, "needs_auth_early", map[string]string{"id": "e4"}); !isCode(err, codec.CodeURLElicitationRequired) {
				t.Fatalf("got %v, want -32042", err)
			}
			select {
			case id := <-completed:
				if id != "e4" {
					t.Fatalf("completed %q, want e4", id)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the completion that came before the error was dropped")
			}
			must(t, ss.NotifyElicitationComplete(ctx, "e4"))
			// The form mode this client lacks is refused before anything is
			// sent.
			res, err := cs.CallTool(ctx, "form", nil)
			if err != nil || !res.IsError || !strings.Contains(firstTextOf(res), "elicitation.form") {
				t.Fatalf("%+v, %v", res, err)
			}
			noMoreCompletions(t, srv.Sessions()[0], marks, completed)
		})
	}
}

func TestElicitURL_refusedWithoutTheCapability(t *testing.T) {
	srv := elicitServer(t)
	formOnly := mcp.NewClient(nil, &mcp.ClientOptions{
		// URL mode's completion notification, and the server's sessions
		// it is sent on, are of 2025-11-25 (2026-07-28 removed both).
		ProtocolVersion: mcp.LatestVersion,
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("a handler saw a request")
			return nil, errors.New("no")
		},
	})
	cs := connect(t, srv, formOnly)
	ctx := ctx10(t)
	ss := srv.Sessions()[0]
	if ec := ss.ClientCapabilities().Elicitation; ec == nil || ec.Form != nil || ec.URL != nil || !ec.SupportsForm() || ec.SupportsURL() {
		t.Fatalf("declared %+v", ec)
	}
	// The server refuses to send URL mode, with a clear error.
	res, err := cs.CallTool(ctx, "connect", nil)
	if err != nil || !res.IsError || !strings.Contains(firstTextOf(res), "did not declare URL mode elicitation (elicitation.url)") {
		t.Fatalf("%+v, %v", res, err)
	}
	_, err = ss.Elicit(ctx, &mcp.ElicitParams{Mode: "url", ElicitationID: "x", URL: "https://example.com", Message: "m"})
	if !errors.Is(err, mcp.ErrNotSupported) {
		t.Fatalf("got %v", err)
	}
	if err := ss.NotifyElicitationComplete(ctx, "x"); !errors.Is(err, mcp.ErrNotSupported) {
		t.Fatalf("got %v", err)
	}
	// Params that break a mode's rules never leave the server.
	for _, p := range []*mcp.ElicitParams{
		{Mode: "url", URL: "https://example.com", Message: "no id"},
		{Mode: "url", ElicitationID: "x", URL: "/relative", Message: "relative"},
		{Mode: "url", ElicitationID: "x", URL: "https://example.com", Message: "schema", RequestedSchema: map[string]any{"type": "object"}},
		{Mode: "form", URL: "https://example.com", Message: "form with a url"},
		{Mode: "popup", Message: "unknown mode"},
	} {
		if _, err := ss.Elicit(ctx, p); !errors.Is(err, mcp.ErrInvalidElicitation) {
			t.Errorf("%s: got %v, want ErrInvalidElicitation", p.Message, err)
		}
	}
	// A server that sends them anyway is answered -32602 by the client,
	// its handler never called.
	for _, p := range []map[string]any{
		{"mode": "url", "elicitationId": "x", "url": "https://example.com", "message": "undeclared mode"},
		{"mode": "popup", "message": "unknown mode"},
		{"mode": "url", "url": "https://example.com", "message": "no id"},
	} {
		_, err := ss.Conn().CallRaw(ctx, "elicitation/create", p)
		if !isCode(err, codec.CodeInvalidParams) {
			t.Errorf("%v: got %v, want -32602", p, err)
		}
	}
}

func TestElicit_byVersion(t *testing.T) {
	for _, tc := range []struct {
		version string
		form    string // the params the client receives, or "" when refused
		url     bool   // URL mode is sent
	}{
		{"2025-11-25", `{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}`, true},
		{"2025-06-18", `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`, false},
		{"2025-03-26", "", false},
		{"2024-11-05", "", false},
	} {
		t.Run(tc.version, func(t *testing.T) {
			srv := mcp.NewServer(nil, nil)
			cl := newClient(t, srv)
			got := make(chan string, 2)
			cl.serve("elicitation/create", func(_ context.Context, p json.RawMessage) (any, error) {
				got <- string(p)
				return map[string]any{"action": "accept"}, nil
			})
			// The client declares both modes, whatever its version.
			cl.mustCall("initialize", map[string]any{
				"protocolVersion": tc.version,
				"capabilities":    map[string]any{"elicitation": map[string]any{"form": map[string]any{}, "url": map[string]any{}}},
				"clientInfo":      map[string]any{"name": "c", "version": "1"},
			}, nil)
			cl.notify("notifications/initialized", nil)
			ctx := ctx10(t)
			_, err := cl.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: "m"})
			switch {
			case tc.form == "" && !errors.Is(err, mcp.ErrNotSupported):
				t.Fatalf("form: got %v, want ErrNotSupported", err)
			case tc.form != "" && err != nil:
				t.Fatal(err)
			case tc.form != "":
				if p := <-got; p != tc.form {
					t.Fatalf("sent %s, want %s", p, tc.form)
				}
			}
			_, err = cl.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "url", ElicitationID: "i", URL: "https://example.com", Message: "m"})
			if tc.url != (err == nil) || (!tc.url && !errors.Is(err, mcp.ErrNotSupported)) {
				t.Fatalf("url: %v", err)
			}
		})
	}
}

func TestURLElicitationRequired_refusesAnInvalidElicitation(t *testing.T) {
	for _, e := range [][]*mcp.ElicitParams{nil, {{URL: "https://example.com", Message: "no id"}}} {
		err := mcp.URLElicitationRequired("", e...)
		if err.Code != codec.CodeInternalError || mcp.URLElicitations(err) != nil {
			t.Fatalf("%v", err)
		}
	}
	err := mcp.URLElicitationRequired("custom", &mcp.ElicitParams{ElicitationID: "a", URL: "https://x.example", Message: "m"})
	raw, _ := codec.AppendValue(nil, err.Data)
	if err.Message != "custom" || string(raw) != `{"elicitations":[{"mode":"url","message":"m","elicitationId":"a","url":"https://x.example"}]}` {
		t.Fatalf("%v %s", err, raw)
	}
	if mcp.URLElicitations(errors.New("other")) != nil || mcp.URLElicitations(codec.ErrInvalidParams) != nil {
		t.Fatal("elicitations of another error")
	}
}

// firstTextOf returns the text of a result's first block.
func firstTextOf(r *mcp.CallToolResult) string {
	if r == nil || len(r.Content) == 0 {
		return ""
	}
	t, _ := r.Content[0].(*mcp.TextContent)
	if t == nil {
		return ""
	}
	return t.Text
}
