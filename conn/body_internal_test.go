package conn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/router"
)

// TestPendingCalls_failAllMakesNoShards: a session that never called ends
// without making the shards of its calls, and a call made after it ended
// still fails with the error it ended with.
func TestPendingCalls_failAllMakesNoShards(t *testing.T) {
	var p pendingCalls
	p.failAll(ErrClosed)
	if p.shards.Load() != nil {
		t.Error("failAll made the shards of a session that never called")
	}
	if _, _, err := p.add(nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after failAll: %v, want ErrClosed", err)
	}
}

// TestBodySession_sharesNothingMutable: sessions without a stream share
// one writer, failed for good; a pooled handler sending to the peer, and
// a Shutdown past its deadline that abandons it (stopWaiting, drain),
// leave it as it was, and the other session's state apart.
func TestBodySession_sharesNothingMutable(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	sent := make(chan error, 1)
	r := router.New()
	r.Register("notify", router.HandlerFunc(func(ctx context.Context, _ *router.Request) (any, error) {
		close(started)
		<-release
		sent <- FromContext(ctx).Notify(context.WithoutCancel(ctx), "n", nil) // abandoned: ctx is done
		return "ok", nil
	}), nil)
	a := NewStream(nil, &Options{Router: r})
	b := NewStream(nil, &Options{Router: r})
	if a.out != noStream || b.out != noStream {
		t.Fatal("a session without a stream has a writer of its own")
	}
	answered := make(chan string, 1)
	go func() {
		_ = a.ServeBody(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"notify"}`), func(msg []byte) { answered <- string(msg) })
	}()
	<-started
	past, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Shutdown(past); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown past its deadline: %v", err)
	}
	if got := <-answered; !strings.Contains(got, `"code":-32004`) {
		t.Errorf("answer %s, want -32004", got)
	}
	close(release)
	if err := <-sent; !errors.Is(err, ErrNoStream) {
		t.Errorf("Notify on a session without a stream: %v, want ErrNoStream", err)
	}
	<-a.Done()
	if noStream.err != ErrNoStream || noStream.noWait || noStream.pending != nil || noStream.flushing {
		t.Errorf("the shared writer changed: err %v, noWait %v, %d pending", noStream.err, noStream.noWait, len(noStream.pending))
	}
	select {
	case <-b.Done():
		t.Fatal("ending one session ended another")
	default:
	}
	if b.stopping.Load() || b.tasks.Load() != 0 {
		t.Error("ending one session stopped another")
	}
	if err := b.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown of the other: %v", err)
	}
}
