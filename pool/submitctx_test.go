package pool_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/pool"
)

func TestPool_SubmitContext_waitsForRoomUntilItsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool(t, &pool.Options{Workers: 1, Queue: 1})
		release := fill(t, p, 1)
		defer release()
		done, cancelDone := context.WithCancel(context.Background())
		cancelDone()
		// Room: a done context does not stop it from queueing.
		queued := make(chan struct{})
		if err := p.SubmitContext(done, fn(func() { close(queued) })); err != nil {
			t.Fatalf("SubmitContext with room = %v", err)
		}
		// Full: a done context returns at once, t not queued.
		if err := p.SubmitContext(done, fn(func() { t.Error("a refused task ran") })); !errors.Is(err, context.Canceled) {
			t.Fatalf("SubmitContext(done) on a full pool = %v, want context.Canceled", err)
		}
		if p.QueueLen() != 1 {
			t.Fatalf("QueueLen = %d, want 1", p.QueueLen())
		}
		// Full: a live context waits, and returns when it ends.
		ctx, cancel := context.WithCancel(context.Background())
		submitted := make(chan error, 1)
		go func() { submitted <- p.SubmitContext(ctx, fn(func() { t.Error("a refused task ran") })) }()
		synctest.Wait()
		select {
		case err := <-submitted:
			t.Fatalf("SubmitContext returned %v on a full pool; it should wait", err)
		default:
		}
		cancel()
		if err := <-submitted; !errors.Is(err, context.Canceled) {
			t.Fatalf("SubmitContext after cancel = %v, want context.Canceled", err)
		}
		// Full: a live context waits, and queues once there is room; a
		// plain Submit waiting beside it is not starved.
		ran := make(chan struct{}, 2)
		go func() { submitted <- p.SubmitContext(context.Background(), fn(func() { ran <- struct{}{} })) }()
		go func() { submitted <- p.Submit(fn(func() { ran <- struct{}{} })) }()
		synctest.Wait()
		release()
		for range 2 {
			if err := <-submitted; err != nil {
				t.Fatal(err)
			}
		}
		<-queued
		<-ran
		<-ran
	})
}

func TestPool_SubmitContext_rejectsUnderReject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPool(t, &pool.Options{Workers: 1, Queue: 1, Overload: pool.Reject})
		release := fill(t, p, 1)
		defer release()
		if err := p.SubmitContext(context.Background(), fn(func() {})); err != nil {
			t.Fatal(err)
		}
		var oe *pool.OverloadedError
		if err := p.SubmitContext(context.Background(), fn(func() {})); !errors.As(err, &oe) {
			t.Fatalf("SubmitContext on a full Reject pool = %v, want *OverloadedError", err)
		}
	})
}
