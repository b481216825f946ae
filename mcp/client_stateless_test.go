package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/router"
)

// stateless is the client options of a session of 2026-07-28.
func stateless(o mcp.ClientOptions) *mcp.ClientOptions {
	o.ProtocolVersion = mcp.Version20260728
	return &o
}

// A session of 2026-07-28 with mcpwire's server: server/discover, no
// initialize, and each request served as a stateless one (its _meta
// names the version and the client).
func TestClient_statelessSessionWithTheServer(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, &mcp.ServerOptions{Instructions: "be kind"})
	seen := make(chan string, 1)
	must(t, srv.AddTool(&mcp.Tool{Name: "who"}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seen <- req.Session.ProtocolVersion() + " " + req.Session.ClientInfo().Name
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}))
	cs := connect(t, srv, mcp.NewClient(&mcp.Implementation{Name: "cli", Version: "2"}, stateless(mcp.ClientOptions{})))
	if v := cs.ProtocolVersion(); v != mcp.Version20260728 {
		t.Fatalf("ProtocolVersion = %q, want %s", v, mcp.Version20260728)
	}
	init := cs.InitializeResult()
	if init.ServerInfo == nil || init.ServerInfo.Name != "srv" || init.Instructions != "be kind" || init.Capabilities.Tools == nil {
		t.Errorf("discovered %+v (server %+v)", init, init.ServerInfo)
	}
	r, err := cs.CallTool(ctx10(t), "who", nil)
	if err != nil || r.IsError {
		t.Fatalf("CallTool: %v %+v", err, r)
	}
	if got := <-seen; got != mcp.Version20260728+" cli" {
		t.Errorf("the tool saw a session of %q, want a stateless one of cli", got)
	}
}

// fakeServer serves r on the other end of a pipe from a client session.
func fakeServer(t *testing.T, r *router.Router, c *mcp.Client) (*mcp.ClientSession, error) {
	t.Helper()
	cs, _, err := fakeServerConn(t, r, c)
	return cs, err
}

// fakeServerConn is fakeServer that also returns the server's end.
func fakeServerConn(t *testing.T, r *router.Router, c *mcp.Client) (*mcp.ClientSession, *conn.Conn, error) {
	t.Helper()
	a, b := conn.Pipe()
	sc := conn.NewStream(conn.NewMessageStream(a, nil), &conn.Options{Router: r, ExposeErrors: true})
	t.Cleanup(func() { sc.Close() })
	cs, err := c.Connect(ctx10(t), conn.NewMessageStream(b, nil))
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, sc, err
}

func handle(r *router.Router, method string, f func(params []byte) (any, error)) {
	if err := r.Register(method, router.HandlerFunc(func(_ context.Context, req *router.Request) (any, error) {
		return f(req.Params)
	}), nil); err != nil {
		panic(err)
	}
}

// legacyServer is a server of initialize's versions alone: server/discover
// is answered by discover.
func legacyServer(discover func() (any, error)) (*router.Router, *[]string) {
	r := router.New()
	var mu sync.Mutex
	var versions []string
	handle(r, "server/discover", func([]byte) (any, error) { return discover() })
	handle(r, "initialize", func(p []byte) (any, error) {
		var ip mcp.InitializeParams
		_ = json.Unmarshal(p, &ip)
		mu.Lock()
		versions = append(versions, ip.ProtocolVersion)
		mu.Unlock()
		return &mcp.InitializeResult{ProtocolVersion: ip.ProtocolVersion, Capabilities: &mcp.ServerCapabilities{},
			ServerInfo: &mcp.Implementation{Name: "old"}}, nil
	})
	handle(r, "notifications/initialized", func([]byte) (any, error) { return nil, nil })
	return r, &versions
}

// A server that refuses server/discover with an error of the older
// versions gets initialize; one whose -32022 lists initialize's versions
// alone gets initialize with the first of them; one that says the
// client lacks a capability is a stateless one: its error is returned.
func TestClient_statelessFallsBackToInitialize(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refuse  *codec.Error
		version string // asked at initialize; "" for none
		answer  any    // server/discover's result when refuse is nil
	}{
		{"any result", nil, mcp.LatestVersion, map[string]any{}},
		{"other versions", nil, mcp.Version20250326, map[string]any{"supportedVersions": []string{"2099-01-01", mcp.Version20250326}}},
		{"method not found", codec.NewError(codec.CodeMethodNotFound, ""), mcp.LatestVersion, nil},
		{"not initialized", codec.NewError(codec.CodeOverloaded, "Bad Request: Server not initialized"), mcp.LatestVersion, nil},
		{"unsupported version", codec.NewError(codec.CodeUnsupportedProtocolVersion, "").
			WithData(map[string]any{"supported": []string{"2099-01-01", mcp.Version20250618}}), mcp.Version20250618, nil},
		{"missing capability", codec.NewError(codec.CodeMissingRequiredClientCapability, ""), "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, versions := legacyServer(func() (any, error) {
				if tc.refuse == nil {
					return tc.answer, nil
				}
				return nil, tc.refuse
			})
			cs, err := fakeServer(t, r, mcp.NewClient(nil, stateless(mcp.ClientOptions{})))
			if tc.version == "" {
				if !isCode(errors.Unwrap(err), tc.refuse.Code) && !isCode(err, tc.refuse.Code) {
					t.Fatalf("Connect: %v, want the server's %d", err, tc.refuse.Code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cs.ProtocolVersion() != tc.version || len(*versions) != 1 || (*versions)[0] != tc.version {
				t.Errorf("session of %q after initialize with %q, want %s", cs.ProtocolVersion(), *versions, tc.version)
			}
		})
	}
}

// A -32022 naming another stateless version is followed: discover again
// with it (not the unknown one asked first).
func TestClient_statelessRetriesAListedVersion(t *testing.T) {
	r := router.New()
	var asked []string
	handle(r, "server/discover", func(p []byte) (any, error) {
		var w struct {
			Meta map[string]any `json:"_meta"`
		}
		_ = json.Unmarshal(p, &w)
		v, _ := w.Meta[mcp.MetaProtocolVersion].(string)
		asked = append(asked, v)
		if v != mcp.Version20260728 {
			return nil, codec.NewError(codec.CodeUnsupportedProtocolVersion, "").
				WithData(map[string]any{"supported": []string{mcp.Version20260728}, "requested": v})
		}
		return map[string]any{"supportedVersions": []string{mcp.Version20260728}, "capabilities": map[string]any{},
			"_meta": map[string]any{mcp.MetaServerInfo: map[string]any{"name": "new", "version": "1"}}}, nil
	})
	cs, err := fakeServer(t, r, mcp.NewClient(nil, &mcp.ClientOptions{ProtocolVersion: "2099-01-01"}))
	if err == nil {
		t.Fatalf("a version the client does not speak started a session of %q", cs.ProtocolVersion())
	}
	cs, err = fakeServer(t, r, mcp.NewClient(nil, stateless(mcp.ClientOptions{})))
	if err != nil {
		t.Fatal(err)
	}
	if cs.InitializeResult().ServerInfo == nil || cs.InitializeResult().ServerInfo.Name != "new" {
		t.Errorf("server info %+v, want the one of _meta", cs.InitializeResult().ServerInfo)
	}
	if strings.Join(asked, ",") != mcp.Version20260728 {
		t.Errorf("asked %q", asked)
	}
}

// input_required results are completed by the client's handlers, round
// after round: requestState echoed byte for byte, left out when the
// server sent none, every request with the session's _meta.
func TestClient_completesInputRequiredRounds(t *testing.T) {
	r := router.New()
	handle(r, "server/discover", func([]byte) (any, error) {
		return map[string]any{"supportedVersions": []string{mcp.Version20260728}, "capabilities": map[string]any{"tools": map[string]any{}}}, nil
	})
	var rounds []string
	const state = `{"nonce": "a b",  "n":1}`
	handle(r, "tools/call", func(p []byte) (any, error) {
		var w struct {
			Meta           map[string]json.RawMessage `json:"_meta"`
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
			RequestState   *string                    `json:"requestState"`
		}
		if err := json.Unmarshal(p, &w); err != nil {
			return nil, err
		}
		if string(w.Meta[mcp.MetaProtocolVersion]) != `"2026-07-28"` || w.Meta[mcp.MetaClientCapabilities] == nil {
			return nil, codec.NewError(codec.CodeInvalidParams, "no _meta")
		}
		st := "-"
		if w.RequestState != nil {
			st = *w.RequestState
		}
		rounds = append(rounds, st+" "+string(w.InputResponses["ask"])+" "+string(w.InputResponses["roots"]))
		switch len(rounds) {
		case 1:
			return codec.Raw(`{"resultType":"input_required","requestState":` + string(codec.AppendString(nil, state)) + `,"inputRequests":{
				"ask":{"method":"elicitation/create","params":{"message":"Sure?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean","default":true}}}}},
				"roots":{"method":"roots/list"}}}`), nil
		case 2:
			return codec.Raw(`{"resultType":"input_required","inputRequests":{"ask":{"method":"elicitation/create","params":{"message":"Really?","requestedSchema":{"type":"object","properties":{}}}}}}`), nil
		}
		return codec.Raw(`{"resultType":"complete","content":[{"type":"text","text":"done"}]}`), nil
	})
	c := mcp.NewClient(nil, stateless(mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{}}, nil
		},
		RootsHandler: func(context.Context, *mcp.ClientSession) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///r"}}}, nil
		},
	}))
	cs, err := fakeServer(t, r, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx10(t), "t", map[string]any{"x": 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "done" {
		t.Errorf("result %+v", res)
	}
	want := []string{
		"-  ",
		state + ` {"action":"accept","content":{"ok":true}} {"roots":[{"uri":"file:///r"}]}`,
		`- {"action":"accept"} `,
	}
	if strings.Join(rounds, "\n") != strings.Join(want, "\n") {
		t.Errorf("rounds:\n%s\nwant:\n%s", strings.Join(rounds, "\n"), strings.Join(want, "\n"))
	}
}

// A server that never stops asking gets ErrTooManyInputRounds; input the
// client has no handler for is ErrInputNotServed.
func TestClient_inputRequiredBounds(t *testing.T) {
	r := router.New()
	handle(r, "server/discover", func([]byte) (any, error) {
		return map[string]any{"supportedVersions": []string{mcp.Version20260728}, "capabilities": map[string]any{}}, nil
	})
	n := 0
	handle(r, "tools/call", func(p []byte) (any, error) {
		n++
		return codec.Raw(`{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}`), nil
	})
	roots := func(context.Context, *mcp.ClientSession) (*mcp.ListRootsResult, error) {
		return &mcp.ListRootsResult{}, nil
	}
	cs, err := fakeServer(t, r, mcp.NewClient(nil, stateless(mcp.ClientOptions{RootsHandler: roots})))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx10(t), "t", nil); !errors.Is(err, mcp.ErrTooManyInputRounds) || n != 17 {
		t.Errorf("CallTool: %v after %d requests, want ErrTooManyInputRounds after 17", err, n)
	}
	cs, err = fakeServer(t, r, mcp.NewClient(nil, stateless(mcp.ClientOptions{})))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx10(t), "t", nil); !errors.Is(err, mcp.ErrInputNotServed) {
		t.Errorf("CallTool without a roots handler: %v, want ErrInputNotServed", err)
	}
}

// List results are kept while their ttlMs says they are fresh, per
// method and params, and dropped on the list's list_changed; a ttlMs of
// 0 (or none) keeps nothing.
func TestClient_cachesFreshListResults(t *testing.T) {
	r := router.New()
	handle(r, "server/discover", func([]byte) (any, error) {
		return map[string]any{"supportedVersions": []string{mcp.Version20260728}, "capabilities": map[string]any{}}, nil
	})
	var mu sync.Mutex
	calls := map[string]int{}
	count := func(m string) int { mu.Lock(); defer mu.Unlock(); return calls[m] }
	handle(r, "tools/list", func([]byte) (any, error) {
		mu.Lock()
		calls["tools/list"]++
		mu.Unlock()
		return codec.Raw(`{"resultType":"complete","ttlMs":60000,"cacheScope":"public","tools":[{"name":"t","inputSchema":{"type":"object"}}]}`), nil
	})
	handle(r, "prompts/list", func([]byte) (any, error) {
		mu.Lock()
		calls["prompts/list"]++
		mu.Unlock()
		return codec.Raw(`{"resultType":"complete","ttlMs":0,"prompts":[]}`), nil
	})
	changed := make(chan struct{}, 1)
	cs, sc, err := fakeServerConn(t, r, mcp.NewClient(nil, stateless(mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) { changed <- struct{}{} },
	})))
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctx10(t)
	for range 3 {
		l, err := cs.ListTools(ctx, nil)
		if err != nil || len(l.Tools) != 1 || l.Tools[0].Name != "t" {
			t.Fatalf("ListTools: %v %+v", err, l)
		}
		l.Tools[0].Name = "changed by the caller"
	}
	if n := count("tools/list"); n != 1 {
		t.Errorf("three ListTools within ttlMs sent %d tools/list, want 1", n)
	}
	if _, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: "2"}); err != nil || count("tools/list") != 2 {
		t.Errorf("another page: %v, %d tools/list, want 2", err, count("tools/list"))
	}
	if err := sc.Notify(ctx, "notifications/tools/list_changed", nil); err != nil {
		t.Fatal(err)
	}
	<-changed
	if _, err := cs.ListTools(ctx, nil); err != nil || count("tools/list") != 3 {
		t.Errorf("after list_changed: %v, %d tools/list, want 3", err, count("tools/list"))
	}
	for range 2 {
		if _, err := cs.ListPrompts(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := count("prompts/list"); n != 2 {
		t.Errorf("ttlMs 0: %d prompts/list for 2 ListPrompts", n)
	}
}

// The _meta the session adds keeps the caller's own members, whatever
// the params look like.
func TestClient_statelessMetaJoinsTheCallers(t *testing.T) {
	r := router.New()
	handle(r, "server/discover", func([]byte) (any, error) {
		return map[string]any{"supportedVersions": []string{mcp.Version20260728}, "capabilities": map[string]any{}}, nil
	})
	got := make(chan []byte, 1)
	handle(r, "tools/call", func(p []byte) (any, error) {
		got <- append([]byte(nil), p...)
		return codec.Raw(`{"content":[]}`), nil
	})
	cs, err := fakeServer(t, r, mcp.NewClient(&mcp.Implementation{Name: "c"}, stateless(mcp.ClientOptions{})))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*mcp.CallToolParams{
		{Name: "plain"},
		{Name: "meta", Meta: mcp.Meta{"progressToken": 7, mcp.MetaProtocolVersion: "1999-01-01"}},
		{Name: "<escaped>", Arguments: json.RawMessage(`{"\u005fmeta":1}`)},
	} {
		if _, err := cs.CallToolWith(ctx10(t), p); err != nil {
			t.Fatal(err)
		}
		var w struct {
			Name string         `json:"name"`
			Meta map[string]any `json:"_meta"`
		}
		b := <-got
		if at := codec.DuplicateName(b); at >= 0 || json.Unmarshal(b, &w) != nil {
			t.Fatalf("%s: params %s", p.Name, b)
		}
		if w.Name != p.Name || w.Meta[mcp.MetaProtocolVersion] != mcp.Version20260728 || w.Meta[mcp.MetaClientCapabilities] == nil ||
			w.Meta[mcp.MetaClientInfo] == nil || (p.Meta != nil && w.Meta["progressToken"] != 7.0) {
			t.Errorf("%s: params %s", p.Name, b)
		}
	}
}
