package conn_test

import (
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/conn"
)

// Busy is true while a request of the peer runs on the pool, and false
// once it has been answered.
func TestConn_busyWhileARequestIsInFlight(t *testing.T) {
	started := make(chan string, 1)
	c, p := serve(t, blockingRouter(t, started), &conn.Options{Cancel: conn.CancelAnswer})
	if c.Busy() {
		t.Fatal("busy before any request")
	}
	p.send(`{"jsonrpc":"2.0","id":"a","method":"wait"}`)
	<-started
	if !c.Busy() {
		t.Fatal("not busy while a handler runs")
	}
	c.Cancel([]byte(`"a"`))
	if m := p.recvObj(); m["id"] != "a" {
		t.Fatalf("answer %v", m)
	}
	deadline := time.Now().Add(10 * time.Second)
	for c.Busy() {
		if time.Now().After(deadline) {
			t.Fatal("still busy after the answer")
		}
		time.Sleep(time.Millisecond)
	}
}
