package middleware_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/middleware"
	"github.com/mcpwire/mcpwire/router"
)

// records logs to a buffer as JSON at level and returns the logger and a
// function decoding what was logged.
func records(t *testing.T, level slog.Level) (*slog.Logger, func() []map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level}))
	return log, func() []map[string]any {
		var out []map[string]any
		for line := range strings.Lines(buf.String()) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			out = append(out, m)
		}
		buf.Reset()
		return out
	}
}

func TestLogging_oneRecordPerCall(t *testing.T) {
	log, logged := records(t, slog.LevelInfo)
	h := middleware.Logging(log, nil)(router.HandlerFunc(func(ctx context.Context, req *router.Request) (any, error) {
		switch req.Method {
		case "slow":
			time.Sleep(2 * time.Millisecond)
		case "bad":
			return nil, codec.NewError(codec.CodeInvalidParams, "invalid params: field \"x\"")
		case "fails":
			return nil, errors.New("disk on fire")
		case "late":
			return nil, context.DeadlineExceeded
		}
		return "ok", nil
	}))
	for _, tc := range []struct {
		method, id string // id "": a notification
		code       float64
		err        string // the error attribute; "": none
	}{
		{"slow", "1", 0, ""},
		{"bad", `"abc"`, -32602, `invalid params: field "x"`},
		{"fails", "3", -32603, ""}, // the text of a plain error is the connection's to log
		{"late", "4", -32012, ""},
		{"note", "", 0, ""},
	} {
		req := &router.Request{Method: tc.method, Params: []byte(`{"secret":1}`)}
		if tc.id != "" {
			req.ID = []byte(tc.id)
		}
		h.Handle(context.Background(), req)
		recs := logged()
		if len(recs) != 1 {
			t.Fatalf("%s: %d records", tc.method, len(recs))
		}
		r := recs[0]
		if r["msg"] != "rpc" || r["level"] != "INFO" || r["method"] != tc.method || r["code"] != tc.code {
			t.Errorf("%s: record %v", tc.method, r)
		}
		if id, ok := r["id"]; (tc.id == "") == ok || (ok && id != tc.id) {
			t.Errorf("%s: id %v, want %q", tc.method, id, tc.id)
		}
		if e, _ := r["error"].(string); e != tc.err {
			t.Errorf("%s: error %q, want %q", tc.method, e, tc.err)
		}
		if _, ok := r["params"]; ok {
			t.Errorf("%s: params logged at info level", tc.method)
		}
		if d, _ := r["duration"].(float64); d <= 0 || (tc.method == "slow" && d < float64(2*time.Millisecond)) {
			t.Errorf("%s: duration %v", tc.method, r["duration"])
		}
	}
}

func TestLogging_paramsAtDebugOnlyCutAndRedacted(t *testing.T) {
	log, logged := records(t, slog.LevelDebug)
	mw := middleware.Logging(log, &middleware.LogOptions{MaxParamBytes: 40, Message: "call"})
	h := mw(router.HandlerFunc(echo))
	for _, tc := range []struct{ params, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`{"_meta":{"authorization":"Bearer hunter2"}}`, `{"_meta":{"authorization":"REDACTED"}}`},
		{`{"x":"` + strings.Repeat("é", 30) + `"}`, `{"x":"` + strings.Repeat("é", 17) + `…`}, // 6 + 17×2 = 40 bytes
		{`{"x":"` + strings.Repeat("é", 30) + `","_meta":{"authorization":"Bearer hunter2"}}`, `{"x":"` + strings.Repeat("é", 17) + `…`},
	} {
		h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1"), Params: []byte(tc.params)})
		recs := logged()
		if len(recs) != 1 || recs[0]["msg"] != "call" {
			t.Fatalf("records %v", recs)
		}
		if got := recs[0]["params"]; got != tc.want {
			t.Errorf("params %q, want %q", got, tc.want)
		}
	}
	// No params, no attribute.
	h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1")})
	if r := logged(); len(r) != 1 || r[0]["params"] != nil {
		t.Errorf("records %v", r)
	}
	// Negative: never.
	h = middleware.Logging(log, &middleware.LogOptions{MaxParamBytes: -1})(router.HandlerFunc(echo))
	h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1"), Params: []byte(`[1]`)})
	if r := logged(); len(r) != 1 || r[0]["params"] != nil {
		t.Errorf("records %v", r)
	}
}

func TestLogging_recordsAPanicAndLetsItGoOn(t *testing.T) {
	log, logged := records(t, slog.LevelInfo)
	h := middleware.Logging(log, nil)(router.HandlerFunc(func(context.Context, *router.Request) (any, error) {
		panic("boom")
	}))
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v", r)
			}
		}()
		h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("7")})
	}()
	if r := logged(); len(r) != 1 || r[0]["code"] != float64(-32603) || r[0]["id"] != "7" {
		t.Errorf("records %v", r)
	}
}

func TestLogging_disabledLoggerStillServes(t *testing.T) {
	log, logged := records(t, slog.LevelWarn)
	h := middleware.Logging(log, nil)(router.HandlerFunc(echo))
	got, err := h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1")})
	if got != true || err != nil {
		t.Errorf("got %v, %v", got, err)
	}
	if r := logged(); len(r) != 0 {
		t.Errorf("records %v below the logger's level", r)
	}
	// At the logger's level, it logs.
	h = middleware.Logging(log, &middleware.LogOptions{Level: slog.LevelWarn})(router.HandlerFunc(echo))
	h.Handle(context.Background(), &router.Request{Method: "m", ID: []byte("1")})
	if r := logged(); len(r) != 1 || r[0]["level"] != "WARN" {
		t.Errorf("records %v", r)
	}
}

func TestLogging_nilLoggerReturnsTheHandler(t *testing.T) {
	h := &plain{}
	if got := middleware.Logging(nil, nil)(h); got != router.Handler(h) {
		t.Errorf("wrapped: %T", got)
	}
}
