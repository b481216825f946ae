package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/redistest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/redisstore"
)

// instance is one server of a fleet: an MCP server over Streamable HTTP
// on loopback, its requestState keys kept by ring (nil: its own keys).
type ringInstance struct {
	t    *testing.T
	url  string
	srv  *mcp.Server
	ring *redisstore.KeyRing
}

// newInstance starts an instance whose keys come from ring (or, ring
// nil, are keys).
func newInstance(t *testing.T, ring *redisstore.KeyRing, keys []mcp.RequestStateKey) *ringInstance {
	t.Helper()
	if ring != nil {
		keys = ring.Keys()
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "srv", Version: "1"}, &mcp.ServerOptions{
		RequestState: &mcp.RequestStateOptions{Keys: keys},
		Conn:         &conn.Options{Pool: newPool(t)},
	})
	form := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}
	err := srv.AddTool(&mcp.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a, err := req.Inputs(ctx, mcp.Input{Key: "user_name", Elicit: &mcp.ElicitParams{Message: "Name?", RequestedSchema: form}})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Hello, %v!", a[0].Elicit.Content["name"])}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ring != nil {
		if err := ring.Attach(srv); err != nil {
			t.Fatal(err)
		}
	}
	h := streamable.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ts.Close()
		h.Close()
	})
	return &ringInstance{t: t, url: ts.URL, srv: srv, ring: ring}
}

// ringOn returns a key ring of a new store on srv, closed at the end.
func ringOn(t *testing.T, srv *redistest.Server, name string, o *redisstore.KeyRingOptions) *redisstore.KeyRing {
	t.Helper()
	ring, _ := countedRing(t, srv, name, o)
	return ring
}

// countedRing is ringOn whose store's commands are counted.
func countedRing(t *testing.T, srv *redistest.Server, name string, o *redisstore.KeyRingOptions) (*redisstore.KeyRing, *countHook) {
	t.Helper()
	st, h := counted(t, srv, name)
	ring, err := st.KeyRing(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ring.Close() })
	return ring, h
}

const greetMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// call posts tools/call greet, with the answer and state of an earlier
// round if state is not empty, and returns the result or the error.
func (in *ringInstance) call(state string) (result map[string]json.RawMessage, rpcErr *struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}) {
	in.t.Helper()
	params := `{"name":"greet","arguments":{},` + greetMeta
	if state != "" {
		params += `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"requestState":"` + state + `"`
	}
	req, _ := http.NewRequest(http.MethodPost, in.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var a struct {
		Result map[string]json.RawMessage `json:"result"`
		Error  *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &a); err != nil || (a.Result == nil) == (a.Error == nil) {
		in.t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	return a.Result, a.Error
}

// state asks for a greeting and returns the requestState of the
// input_required result.
func (in *ringInstance) state() string {
	in.t.Helper()
	res, e := in.call("")
	var st string
	if e != nil || string(res["resultType"]) != `"input_required"` || json.Unmarshal(res["requestState"], &st) != nil {
		in.t.Fatalf("want input_required with a requestState, got %v %+v", res, e)
	}
	return st
}

// opens reports whether the instance completes the request whose state
// is st; it fails the test on any answer but the greeting or the
// refusal of the state (-32602, data.field requestState), whose reason
// it returns.
func (in *ringInstance) opens(st string) (bool, string) {
	in.t.Helper()
	res, e := in.call(st)
	if e != nil {
		var data struct{ Field, Reason string }
		if e.Code != -32602 || json.Unmarshal(e.Data, &data) != nil || data.Field != "requestState" {
			in.t.Fatalf("want the refusal of a requestState, got %+v", e)
		}
		return false, data.Reason
	}
	if !strings.Contains(string(res["content"]), "Hello, Alice!") {
		in.t.Fatalf("want the greeting, got %v", res)
	}
	return true, ""
}

// waitOpens waits, polling within a bound, until other seals states that
// in opens: until it has switched to in's key.
func (in *ringInstance) waitOpens(other *ringInstance) {
	in.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ok, _ := in.opens(other.state()); ok {
			return
		}
		if time.Now().After(deadline) {
			in.t.Fatal("the instance never sealed with the new key")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestKeyRing_sharedByTwoInstances: a state sealed by one instance opens
// on the other; a rotation done on the second reaches the first, which
// then seals with the new key (a server holding only that key opens it);
// states sealed before still open during the overlap; a foreign state is
// refused with the spec's error.
func TestKeyRing_sharedByTwoInstances(t *testing.T) {
	srv := redistest.Start(t)
	o := &redisstore.KeyRingOptions{Reload: time.Hour, Delay: 300 * time.Millisecond}
	ra, ha := countedRing(t, srv, "a", o)
	rb, hb := countedRing(t, srv, "b", o)
	a, b := newInstance(t, ra, nil), newInstance(t, rb, nil)
	if ka, kb := a.ring.Keys(), b.ring.Keys(); len(ka) != 1 || len(kb) != 1 || ka[0].ID != kb[0].ID {
		t.Fatalf("the instances hold %v and %v, want one key", ka, kb)
	}
	before := ha.n.Load() + hb.n.Load()
	old := a.state()
	if ok, why := b.opens(old); !ok {
		t.Fatalf("a state sealed by a, opened on b: refused (%s)", why)
	}
	if n := ha.n.Load() + hb.n.Load() - before; n != 0 {
		t.Errorf("sealing and opening a requestState cost %d Redis commands, want 0", n)
	}

	key, err := b.ring.Rotate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// a learns of the key over the bus (the reload is an hour away) and
	// starts sealing with it after the delay.
	onlyNew := newInstance(t, nil, []mcp.RequestStateKey{key})
	onlyNew.waitOpens(a)
	for name, in := range map[string]*ringInstance{"a": a, "b": b} {
		if ok, why := in.opens(old); !ok {
			t.Errorf("%s: a state sealed before the rotation, within the overlap: refused (%s)", name, why)
		}
		if ok, why := in.opens(b.state()); !ok {
			t.Errorf("%s: a state sealed by b after the rotation: refused (%s)", name, why)
		}
	}
	foreign := newInstance(t, nil, nil) // a key of its own
	if ok, why := a.opens(foreign.state()); ok || why != "unknownKey" {
		t.Errorf("a foreign state: opened %v, reason %q; want refused as unknownKey", ok, why)
	}
	if ok, why := onlyNew.opens(old); ok || why != "unknownKey" {
		t.Errorf("the old key's state on a server without it: opened %v, reason %q", ok, why)
	}
}

// TestKeyRing_overlapEnds: once the overlap after a rotation ends, the
// replaced key leaves the servers (its states are refused) and Redis.
func TestKeyRing_overlapEnds(t *testing.T) {
	srv := redistest.Start(t)
	o := &redisstore.KeyRingOptions{Reload: time.Hour, Delay: 100 * time.Millisecond, Overlap: 500 * time.Millisecond}
	a := newInstance(t, ringOn(t, srv, "a", o), nil)
	old := a.state()
	if _, err := a.ring.Rotate(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, why := a.opens(old)
		if !ok {
			if why != "unknownKey" {
				t.Fatalf("refused as %q, want unknownKey", why)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the replaced key still opens past its overlap")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if keys := a.ring.Keys(); len(keys) != 1 {
		t.Errorf("the ring holds %d keys past the overlap, want 1", len(keys))
	}
}

// TestKeyRing_startTogether: instances starting at once on an empty
// Redis agree on one first key.
func TestKeyRing_startTogether(t *testing.T) {
	srv := redistest.Start(t)
	const n = 8
	ids := make([]uint32, n)
	var wg sync.WaitGroup
	for i := range n {
		st := storeOn(t, srv, fmt.Sprint("i", i))
		wg.Go(func() {
			ring, err := st.KeyRing(context.Background(), nil)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = ring.Keys()[0].ID
			ring.Close()
		})
	}
	wg.Wait()
	for i := range ids {
		if ids[i] != ids[0] {
			t.Fatalf("the instances hold different first keys: %v", ids)
		}
	}
}

// TestKeyRing_redisDown: with Redis killed, the servers keep sealing and
// opening (no Redis on that path), Rotate fails within a bound; after a
// restart that lost everything, the ring is written back from what the
// instances hold (states sealed before still open) and rotations work
// again with the same stores.
func TestKeyRing_redisDown(t *testing.T) {
	srv := redistest.Start(t)
	o := &redisstore.KeyRingOptions{Reload: 200 * time.Millisecond, Delay: 300 * time.Millisecond}
	a := newInstance(t, ringOn(t, srv, "a", o), nil)
	b := newInstance(t, ringOn(t, srv, "b", o), nil)
	before := a.state()
	srv.Kill()
	if ok, why := b.opens(a.state()); !ok {
		t.Fatalf("Redis down: a state sealed by a, opened on b: refused (%s)", why)
	}
	start := time.Now()
	if _, err := a.ring.Rotate(context.Background()); err == nil {
		t.Fatal("Rotate with Redis down: no error")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Rotate with Redis down took %v", d)
	}
	srv.Restart()
	key, err := a.ring.Rotate(context.Background())
	if err != nil {
		t.Fatalf("Rotate after the restart: %v", err)
	}
	newInstance(t, nil, []mcp.RequestStateKey{key}).waitOpens(b)
	if ok, why := b.opens(before); !ok {
		t.Errorf("a state sealed before the outage: refused (%s)", why)
	}
}

// TestKeyRing_missedMessageCaughtUpByReload: an instance that does not
// hear of a rotation (its bus is closed) learns of it at its next reload,
// before the new key starts sealing anywhere.
func TestKeyRing_missedMessageCaughtUpByReload(t *testing.T) {
	srv := redistest.Start(t)
	o := &redisstore.KeyRingOptions{Reload: 100 * time.Millisecond, Delay: 2 * time.Second}
	a := newInstance(t, ringOn(t, srv, "a", o), nil)
	deaf := storeOn(t, srv, "b")
	ring, err := deaf.KeyRing(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ring.Close() })
	b := newInstance(t, ring, nil)
	deaf.Close() // its subscriptions end: no message reaches b's ring
	rotated := time.Now()
	key, err := a.ring.Rotate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !slices.ContainsFunc(b.ring.Keys(), func(k mcp.RequestStateKey) bool { return k.ID == key.ID }) {
		if time.Now().After(deadline) {
			t.Fatal("b never learnt of the new key")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if d := time.Since(rotated); d >= o.Delay {
		t.Errorf("b learnt of the key %v after the rotation, past the delay (%v)", d, o.Delay)
	}
	newInstance(t, nil, []mcp.RequestStateKey{key}).waitOpens(b)
}
