package conn_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/conn"
)

// Stopping is open while the connection serves, and closed once Shutdown
// (or Close) has begun; asked for only afterwards, it is closed already.
func TestConn_stoppingIsClosedOnceShutdownBegins(t *testing.T) {
	for _, end := range []string{"shutdown", "close"} {
		c := conn.NewStream(nil, nil)
		st := c.Stopping()
		select {
		case <-st:
			t.Fatalf("%s: closed before", end)
		default:
		}
		if end == "shutdown" {
			if err := c.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
		} else {
			c.Close()
		}
		select {
		case <-st:
		default:
			t.Fatalf("%s: open after", end)
		}
		select {
		case <-c.Stopping():
		default:
			t.Fatalf("%s: asked for afterwards, open", end)
		}
	}
}
