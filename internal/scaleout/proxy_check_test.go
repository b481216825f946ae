package scaleout

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestScaleout_proxyAnswers502ForAKilledInstance: the harness itself. An
// instance killed with SIGKILL makes the proxy answer 502 when its turn
// comes, the next request going to the next instance; once removed from
// the rotation, every request is served by the others in turn.
func TestScaleout_proxyAnswers502ForAKilledInstance(t *testing.T) {
	c := startCluster(t)
	call := func(id int) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return call26(ctx, c.hc, c.proxy.URL(), id)
	}
	c.kill("b")
	if c.inst["b"].running() {
		t.Fatal("b still runs after kill")
	}
	for i, want := range []string{"a", "b", "c", "a", "b", "c"} {
		backend, err := call(i)
		switch {
		case backend != want:
			t.Fatalf("call %d went to %q, want %q", i, backend, want)
		case want == "b" && (err == nil || !strings.Contains(err.Error(), "status 502")):
			t.Fatalf("call %d to the killed b: %v, want status 502", i, err)
		case want != "b" && err != nil:
			t.Fatalf("call %d to %s: %v", i, want, err)
		}
	}
	c.proxy.remove("b")
	for i, want := range []string{"a", "c", "a", "c"} {
		if backend, err := call(10 + i); backend != want || err != nil {
			t.Fatalf("call %d without b: %q %v, want %q and an answer", i, backend, err, want)
		}
	}
}
