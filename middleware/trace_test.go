package middleware_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/router"
	"github.com/mcpwire/mcpwire/transport"
)

const (
	tp  = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tp2 = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
)

type spanKey struct{}

func TestTraceContext(t *testing.T) {
	for _, tc := range []struct {
		name            string
		header          http.Header
		params          string
		parent, state   string // what the handler sees; "" for none
		extractorCalled bool
	}{
		{"none", nil, ``, "", "", false},
		{"header", http.Header{"Traceparent": {tp}, "Tracestate": {"rojo=1"}}, ``, tp, "rojo=1", true},
		{"several tracestate lines are one list", http.Header{"Traceparent": {tp}, "Tracestate": {"rojo=1", "congo=2"}}, ``, tp, "rojo=1,congo=2", true},
		{"invalid tracestate is dropped", http.Header{"Traceparent": {tp}, "Tracestate": {"Rojo=1"}}, ``, tp, "", true},
		{"repeated traceparent is ignored", http.Header{"Traceparent": {tp, tp2}}, `{"_meta":{"traceparent":"` + tp2 + `"}}`, "", "", false},
		{"invalid header traceparent is ignored", http.Header{"Traceparent": {"00-xyz"}}, `{"_meta":{"traceparent":"` + tp2 + `"}}`, "", "", false},
		{"header wins over _meta", http.Header{"Traceparent": {tp}}, `{"_meta":{"traceparent":"` + tp2 + `"}}`, tp, "", true},
		{"_meta when the header has none", http.Header{"Accept": {"*/*"}}, `{"_meta":{"traceparent":"` + tp2 + `","tracestate":"congo=2"}}`, tp2, "congo=2", true},
		{"_meta on a stream", nil, `{"x":1,"_meta":{"tracestate":"congo=2","traceparent":"` + tp + `"}}`, tp, "congo=2", true},
		{"_meta traceparent not a string", nil, `{"_meta":{"traceparent":1}}`, "", "", false},
		{"_meta traceparent invalid", nil, `{"_meta":{"traceparent":"` + tp[:54] + `"}}`, "", "", false},
		{"_meta tracestate invalid", nil, `{"_meta":{"traceparent":"` + tp + `","tracestate":"x"}}`, tp, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			extract := func(ctx context.Context, parent, state string) context.Context {
				called = true
				if parent != tc.parent || state != tc.state {
					t.Errorf("extract got %q %q", parent, state)
				}
				return context.WithValue(ctx, spanKey{}, "span of "+parent)
			}
			h := middleware.TraceContext(extract)(router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
				parent, state := middleware.TraceparentFromContext(ctx)
				if parent != tc.parent || state != tc.state {
					t.Errorf("handler sees %q %q, want %q %q", parent, state, tc.parent, tc.state)
				}
				if span, _ := ctx.Value(spanKey{}).(string); tc.extractorCalled && span != "span of "+tc.parent {
					t.Errorf("the handler has not extract's context: %q", span)
				}
				return nil, nil
			}))
			ctx := context.Background()
			if tc.header != nil {
				ctx = transport.WithHeader(ctx, tc.header)
			}
			req := &router.Request{Method: "m", ID: []byte("1")}
			if tc.params != "" {
				req.Params = []byte(tc.params)
			}
			h.Handle(ctx, req)
			if called != tc.extractorCalled {
				t.Errorf("extract called: %v", called)
			}
		})
	}
}

// Without an extract hook, and with one that returns nil, the values are
// still in the handler's context.
func TestTraceContext_withoutAHook(t *testing.T) {
	for _, extract := range []func(context.Context, string, string) context.Context{
		nil,
		func(context.Context, string, string) context.Context { return nil },
	} {
		var got string
		h := middleware.TraceContext(extract)(router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
			got, _ = middleware.TraceparentFromContext(ctx)
			return nil, nil
		}))
		h.Handle(transport.WithHeader(context.Background(), http.Header{"Traceparent": {tp}}), &router.Request{Method: "m"})
		if got != tp {
			t.Errorf("traceparent %q", got)
		}
	}
}
