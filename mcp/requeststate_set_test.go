package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestInput_setRequestStateKeys checks that SetRequestStateKeys replaces
// the keys whole: the first seals, the others open until their Until, a
// key left out no longer opens, and invalid keys change nothing.
func TestInput_setRequestStateKeys(t *testing.T) {
	k1, k2, k3 := stateKey(1, 0x11), stateKey(2, 0x22), stateKey(3, 0x33)
	srv := inputServer(t, &mcp.ServerOptions{RequestState: &mcp.RequestStateOptions{Keys: []mcp.RequestStateKey{k1}}})
	p := newStatelessPeer(t, srv, "inprocess")
	onlyK2 := newStatelessPeer(t, inputServer(t, &mcp.ServerOptions{RequestState: &mcp.RequestStateOptions{Keys: []mcp.RequestStateKey{k2}}}), "inprocess")
	hello := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"Hello, Alice!"}]}`)
	unknown := refusedState(t, "unknownKey", "was not issued by this server or its key has been retired")
	answer := func(st string) string { return retry(greetParams, `{"user_name":`+aliceAnswer+`}`, st) }

	_, under1 := inputRequired(t, p.call("tools/call", greetParams))
	// k2 opens only: states are still sealed under k1.
	must(t, srv.SetRequestStateKeys([]mcp.RequestStateKey{k1, k2}))
	_, still1 := inputRequired(t, p.call("tools/call", greetParams))
	if got := onlyK2.call("tools/call", answer(still1)); got != unknown {
		t.Errorf("sealed while k2 only opened, on a k2 server:\n got %s\nwant %s", got, unknown)
	}
	// k2 seals; k1 opens until its Until.
	must(t, srv.SetRequestStateKeys([]mcp.RequestStateKey{k2, {ID: k1.ID, Secret: k1.Secret, Until: time.Now().Add(time.Hour)}}))
	_, under2 := inputRequired(t, p.call("tools/call", greetParams))
	for name, st := range map[string]string{"k1's": under1, "k2's": under2} {
		if got := p.call("tools/call", answer(st)); got != hello {
			t.Errorf("%s state:\n got %s\nwant %s", name, got, hello)
		}
	}
	if got := onlyK2.call("tools/call", answer(under2)); got != hello {
		t.Errorf("sealed under k2, on a k2 server:\n got %s\nwant %s", got, hello)
	}
	// Invalid sets change nothing.
	for _, bad := range [][]mcp.RequestStateKey{nil, {k3, k3}, {{ID: 4, Secret: []byte("short")}}} {
		if err := srv.SetRequestStateKeys(bad); err == nil {
			t.Errorf("%d keys: no error", len(bad))
		}
	}
	if got := p.call("tools/call", answer(under1)); got != hello {
		t.Errorf("k1's state after invalid sets:\n got %s\nwant %s", got, hello)
	}
	// k1 left out: its states no longer open.
	must(t, srv.SetRequestStateKeys([]mcp.RequestStateKey{k2}))
	if got := p.call("tools/call", answer(under1)); got != unknown {
		t.Errorf("a key left out:\n got %s\nwant %s", got, unknown)
	}
	if got := p.call("tools/call", answer(under2)); got != hello || !strings.Contains(got, "Alice") {
		t.Errorf("the key kept:\n got %s\nwant %s", got, hello)
	}
}
