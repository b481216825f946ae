package mcp_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/internal/principal"
	"github.com/mcpwire/mcpwire/mcp"
)

// stateKey returns a key with id whose secret is filled with b.
func stateKey(id uint32, b byte) mcp.RequestStateKey {
	return mcp.RequestStateKey{ID: id, Secret: bytes.Repeat([]byte{b}, mcp.RequestStateKeySize)}
}

// refusedState is the answer to a requestState refused for reason.
func refusedState(t *testing.T, reason, msg string) string {
	return canon(t, `{"code":-32602,"message":"Invalid params: requestState `+msg+`; send the request again without requestState and inputResponses",`+
		`"data":{"field":"requestState","reason":"`+reason+`"}}`)
}

const greetParams = `{"name":"greet","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}`

// TestInput_expiredState checks that a requestState opens until its
// lifetime ends, and is refused as expired from then on (in a synctest
// bubble: its clock moves only when every goroutine waits).
func TestInput_expiredState(t *testing.T) {
	for _, transport := range []string{"stdio", "inprocess"} {
		t.Run(transport, func(t *testing.T) { testExpiredState(t, transport) })
	}
}

func testExpiredState(t *testing.T, transport string) {
	synctest.Test(t, func(t *testing.T) {
		srv := inputServer(t, &mcp.ServerOptions{RequestState: &mcp.RequestStateOptions{TTL: time.Minute}})
		p := newStatelessPeer(t, srv, transport)
		_, st := inputRequired(t, p.call("tools/call", greetParams))
		answered := retry(greetParams, `{"user_name":`+aliceAnswer+`}`, st)
		hello := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"Hello, Alice!"}]}`)
		time.Sleep(time.Minute - time.Second)
		if got := p.call("tools/call", answered); got != hello {
			t.Fatalf("before the end of its lifetime:\n got %s\nwant %s", got, hello)
		}
		time.Sleep(time.Second)
		if got, want := p.call("tools/call", answered), refusedState(t, "expired", "has expired"); got != want {
			t.Errorf("at the end of its lifetime:\n got %s\nwant %s", got, want)
		}
	})
}

// TestInput_keyRotation checks that a rotated key goes on opening the
// states it sealed for the overlap and no longer, that a new state is
// sealed under the new key, and that another instance given the keys
// opens the states of the first.
func TestInput_keyRotation(t *testing.T) {
	for _, transport := range []string{"stdio", "inprocess"} {
		t.Run(transport, func(t *testing.T) { testKeyRotation(t, transport) })
	}
}

func testKeyRotation(t *testing.T, transport string) {
	synctest.Test(t, func(t *testing.T) {
		k1, k2 := stateKey(1, 0x11), stateKey(2, 0x22)
		srv := inputServer(t, &mcp.ServerOptions{RequestState: &mcp.RequestStateOptions{
			Keys: []mcp.RequestStateKey{k1}, TTL: 10 * time.Minute, Overlap: time.Minute}})
		p := newStatelessPeer(t, srv, transport)
		// A second instance that holds the new key, and the old one after it.
		peer := newStatelessPeer(t, inputServer(t, &mcp.ServerOptions{RequestState: &mcp.RequestStateOptions{
			Keys: []mcp.RequestStateKey{k2, {ID: k1.ID, Secret: k1.Secret, Until: time.Now().Add(time.Minute)}}}}), transport)
		// A third that holds only the new key.
		onlyNew := newStatelessPeer(t, inputServer(t, &mcp.ServerOptions{RequestState: &mcp.RequestStateOptions{
			Keys: []mcp.RequestStateKey{k2}}}), transport)
		hello := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"Hello, Alice!"}]}`)
		answer := func(st string) string { return retry(greetParams, `{"user_name":`+aliceAnswer+`}`, st) }
		unknown := refusedState(t, "unknownKey", "was not issued by this server or its key has been retired")

		_, old := inputRequired(t, p.call("tools/call", greetParams))
		if got := peer.call("tools/call", answer(old)); got != hello {
			t.Errorf("another instance with the old key:\n got %s\nwant %s", got, hello)
		}
		must(t, srv.RotateRequestStateKey(k2))
		if got := p.call("tools/call", answer(old)); got != hello {
			t.Errorf("the old key within the overlap:\n got %s\nwant %s", got, hello)
		}
		_, fresh := inputRequired(t, p.call("tools/call", greetParams))
		if got := onlyNew.call("tools/call", answer(fresh)); got != hello {
			t.Errorf("a state sealed after the rotation, opened with the new key alone:\n got %s\nwant %s", got, hello)
		}
		if got := onlyNew.call("tools/call", answer(old)); got != unknown {
			t.Errorf("a state of the old key, opened with the new one alone:\n got %s\nwant %s", got, unknown)
		}
		time.Sleep(time.Minute)
		for name, q := range map[string]*statelessPeer{"rotated": p, "configured": peer} {
			if got := q.call("tools/call", answer(old)); got != unknown {
				t.Errorf("%s: the old key after the overlap:\n got %s\nwant %s", name, got, unknown)
			}
			if got := q.call("tools/call", answer(fresh)); got != hello {
				t.Errorf("%s: the new key after the overlap:\n got %s\nwant %s", name, got, hello)
			}
		}
		if err := srv.RotateRequestStateKey(k2); err == nil {
			t.Error("rotating to a key the server holds: no error")
		}
	})
}

// TestInput_requestStateOptions checks the errors of invalid options.
func TestInput_requestStateOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    mcp.RequestStateOptions
		want string
	}{
		{"short secret", mcp.RequestStateOptions{Keys: []mcp.RequestStateKey{{ID: 1, Secret: []byte("short")}}}, "secret is 5 bytes, want 32"},
		{"two keys, one id", mcp.RequestStateOptions{Keys: []mcp.RequestStateKey{stateKey(1, 1), stateKey(1, 2)}}, "two keys have id 1"},
		{"first key retires", mcp.RequestStateOptions{Keys: []mcp.RequestStateKey{{ID: 1, Secret: stateKey(1, 1).Secret, Until: time.Now()}}}, "has a Until"},
	} {
		err := tc.o.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Errorf("%s: NewServer panicked with %v", tc.name, r)
				}
			}()
			mcp.NewServer(nil, &mcp.ServerOptions{RequestState: &tc.o})
		}()
	}
	k, err := mcp.NewRequestStateKey(9)
	must(t, err)
	if o := (mcp.RequestStateOptions{Keys: []mcp.RequestStateKey{k}}); k.ID != 9 || o.Validate() != nil {
		t.Errorf("NewRequestStateKey: id %d, %v", k.ID, o.Validate())
	}
}

// TestInput_principal checks that a requestState is bound to the
// principal of the request that got it: another principal's request,
// served by an instance with the same keys, is refused.
func TestInput_principal(t *testing.T) {
	keys := &mcp.RequestStateOptions{Keys: []mcp.RequestStateKey{stateKey(1, 0x11)}}
	as := func(who string) *statelessPeer {
		ctx := principal.With(context.Background(), who)
		return newStatelessPeer(t, inputServer(t, &mcp.ServerOptions{RequestState: keys, Conn: &conn.Options{Context: ctx}}), "inprocess")
	}
	alice, alice2, bob := as("alice"), as("alice"), as("bob")
	_, st := inputRequired(t, alice.call("tools/call", greetParams))
	answer := retry(greetParams, `{"user_name":`+aliceAnswer+`}`, st)
	hello := canon(t, `{"resultType":"complete",`+serverInfoMeta+`,"content":[{"type":"text","text":"Hello, Alice!"}]}`)
	if got := alice2.call("tools/call", answer); got != hello {
		t.Errorf("the same principal:\n got %s\nwant %s", got, hello)
	}
	if got, want := bob.call("tools/call", answer), refusedState(t, "wrongRequest", "was issued for another request"); got != want {
		t.Errorf("another principal:\n got %s\nwant %s", got, want)
	}
}

// TestInput_maxBytes checks that the answers a requestState would carry
// are bounded by RequestStateOptions.MaxBytes: a round whose earlier
// answers exceed it is refused, one within it is not.
func TestInput_maxBytes(t *testing.T) {
	p := newStatelessPeer(t, inputServer(t, &mcp.ServerOptions{RequestState: &mcp.RequestStateOptions{MaxBytes: 200}}), "inprocess")
	rounds := `{"name":"rounds","arguments":{},"_meta":` + allCaps + `}`
	_, st := inputRequired(t, p.call("tools/call", rounds))
	small := `{"input-1":` + aliceAnswer + `}`
	if rest, _ := inputRequired(t, p.call("tools/call", retry(rounds, small, st))); !strings.Contains(rest, `"input-2"`) {
		t.Errorf("within the bound: %s", rest)
	}
	big := `{"input-1":{"action":"accept","content":{"name":"` + strings.Repeat("A", 200) + `"}}}`
	want := canon(t, `{"code":-32602,"message":"Invalid params: the answers of this request's earlier rounds are too large to carry in requestState","data":null}`)
	if got := p.call("tools/call", retry(rounds, big, st)); got != want {
		t.Errorf("beyond the bound:\n got %s\nwant %s", got, want)
	}
}
