package mcp_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
)

// Go client ↔ Go server: one tool asks its client two things, the second
// after the first is answered, with the same handler code in both eras —
// under 2025-11-25 two elicitation/create requests while the handler
// waits, under 2026-07-28 two input_required rounds, each a retry of
// tools/call carrying the sealed requestState.

// twoQuestions is a server whose tool "two" asks "first?" then "second?"
// and answers with both answers; opts may set its RequestState.
func twoQuestions(t *testing.T, opts *mcp.ServerOptions) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, opts)
	ask := func(ctx context.Context, req *mcp.CallToolRequest, q string) (string, error) {
		r, err := req.Elicit(ctx, &mcp.ElicitParams{Message: q,
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}})
		if err != nil {
			return "", err
		}
		a, _ := r.Content["a"].(string)
		return a, nil
	}
	must(t, srv.AddTool(&mcp.Tool{Name: "two"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a1, err := ask(ctx, req, "first?")
		if err != nil {
			return nil, err
		}
		a2, err := ask(ctx, req, "second? (after "+a1+")")
		if err != nil {
			return nil, err
		}
		return textResult(a1 + "+" + a2), nil
	}))
	return srv
}

// answering is a client of version v whose elicitation handler answers
// "first?" with a1 and the second question with a2, calling between (if
// set) before it answers.
func answering(v string, between func()) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "cli", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: v,
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			a := "a1"
			if strings.HasPrefix(req.Params.Message, "second?") {
				a = "a2"
				if between != nil {
					between()
				}
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"a": a}}, nil
		}})
}

// wire is the client's end of a pipe, which counts the tools/call
// requests the client writes and may alter each before it goes; seen, if
// set, sees every message the client writes.
type wire struct {
	conn.MessageConn
	calls  atomic.Int32
	change func(msg []byte) []byte
	seen   func(msg []byte)
}

func (w *wire) WriteMessage(msg []byte) error {
	if w.seen != nil {
		w.seen(msg)
	}
	if strings.Contains(string(msg), `"method":"tools/call"`) {
		w.calls.Add(1)
		if w.change != nil {
			msg = w.change(append([]byte(nil), msg...))
		}
	}
	return w.MessageConn.WriteMessage(msg)
}

// connectWire connects c to srv over a pipe whose client end is w.
func connectWire(t *testing.T, srv *mcp.Server, c *mcp.Client, w *wire) *mcp.ClientSession {
	t.Helper()
	a, b := conn.Pipe()
	w.MessageConn = b
	return connectOver(t, srv, c, conn.NewMessageStream(a, nil), conn.NewMessageStream(w, nil))
}

func TestRounds_aToolAsksTwiceInBothEras(t *testing.T) {
	for _, tc := range []struct {
		version string
		calls   int32 // tools/call requests sent
	}{
		{mcp.Version20260728, 3}, // the call, then a retry per question
		{"2025-11-25", 1},
	} {
		t.Run(tc.version, func(t *testing.T) {
			w := new(wire)
			cs := connectWire(t, twoQuestions(t, nil), answering(tc.version, nil), w)
			inproc := connectInProcess(t, twoQuestions(t, nil), answering(tc.version, nil))
			for _, cs := range []*mcp.ClientSession{cs, inproc} {
				if v := cs.ProtocolVersion(); v != tc.version {
					t.Fatalf("version %s", v)
				}
				r, err := cs.CallTool(ctx10(t), "two", nil)
				if err != nil || r.IsError || r.Content[0].(*mcp.TextContent).Text != "a1+a2" {
					t.Fatalf("%+v, %v", r, err)
				}
			}
			if n := w.calls.Load(); n != tc.calls {
				t.Errorf("%d tools/call sent, want %d", n, tc.calls)
			}
		})
	}
}

// A state the client altered, one sealed longer ago than the server's
// TTL, are refused (-32602); a key rotated between rounds is not: the
// state sealed under the old key still opens.
func TestRounds_requestStateRefusedWhenTamperedOrExpiredNotWhenRotated(t *testing.T) {
	call := func(t *testing.T, srv *mcp.Server, c *mcp.Client, w *wire) error {
		t.Helper()
		cs := connectWire(t, srv, c, w)
		r, err := cs.CallTool(ctx10(t), "two", nil)
		if err == nil && (r.IsError || r.Content[0].(*mcp.TextContent).Text != "a1+a2") {
			t.Fatalf("%+v", r)
		}
		return err
	}
	wantRefused := func(t *testing.T, err error) {
		t.Helper()
		var e *codec.Error
		if !errors.As(err, &e) || e.Code != codec.CodeInvalidParams || !strings.Contains(e.Message, "requestState") {
			t.Fatalf("got %v, want -32602 naming requestState", err)
		}
	}

	t.Run("tampered", func(t *testing.T) {
		w := &wire{change: func(msg []byte) []byte { // a letter of the state changed
			if i := strings.Index(string(msg), `"requestState":"`); i >= 0 {
				j := i + len(`"requestState":"`) + 10
				if msg[j] == 'A' {
					msg[j] = 'B'
				} else {
					msg[j] = 'A'
				}
			}
			return msg
		}}
		wantRefused(t, call(t, twoQuestions(t, nil), answering(mcp.Version20260728, nil), w))
		if n := w.calls.Load(); n != 2 {
			t.Errorf("%d tools/call sent, want 2 (the call and its refused retry)", n)
		}
	})

	t.Run("expired", func(t *testing.T) {
		srv := twoQuestions(t, &mcp.ServerOptions{RequestState: &mcp.RequestStateOptions{TTL: 50 * time.Millisecond}})
		slow := func() { time.Sleep(100 * time.Millisecond) } // longer than the TTL
		wantRefused(t, call(t, srv, answering(mcp.Version20260728, slow), new(wire)))
	})

	t.Run("rotated", func(t *testing.T) {
		srv := twoQuestions(t, nil)
		rotate := func() {
			k, err := mcp.NewRequestStateKey(7)
			must(t, err)
			must(t, srv.RotateRequestStateKey(k))
		}
		if err := call(t, srv, answering(mcp.Version20260728, rotate), new(wire)); err != nil {
			t.Fatal(err)
		}
	})
}
