package mcp

import (
	"context"
	"errors"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// Tasks shared by several instances: a TaskStore they all use (such as
// package redisstore's) holds every task's record, and is the truth; the
// work of a task runs in the instance that started it. Another instance
// serves tasks/get, tasks/update and tasks/cancel from the store alone.
// What it must tell the running instance (a cancellation, answers to
// input requests) and what the running instance tells the others (the
// task has ended) goes through the store's TaskSignals, when it has
// them; without them, the others poll the store.
//
// A task whose instance dies while it runs keeps the record it had then
// ("working" or "input_required") until its lifetime ends, when it is
// gone: no other instance takes its work over.

// TaskSignals is what a TaskStore shared by several instances may add,
// so that an instance learns at once of a change another one made to a
// task's record. Delivery is at most once: a signal may be lost (while
// the store reconnects, say), and whoever waits on one also reads the
// record again now and then, so that a lost signal costs time, never the
// change. Implementations must be safe for concurrent use.
type TaskSignals interface {
	// Signal tells the watchers of task id of session, on every instance
	// sharing the store (this one included), that its record changed.
	Signal(ctx context.Context, session, id string) error
	// Watch calls f after each Signal of task id of session until stop
	// is called. f runs on the store's goroutine: it must not block.
	Watch(ctx context.Context, session, id string, f func()) (stop func(), err error)
}

// errTaskStore answers a task request the task store failed (Redis
// down, say): the request may be sent again later.
var errTaskStore = codec.NewError(codec.CodeInternalError, "Internal error: the task store is unavailable")

// storeErr returns what a task request the store failed with err is
// answered: the error itself when it is a JSON-RPC error or the request
// ended, else errTaskStore (err is logged, not sent).
func (s *Server) storeErr(ctx context.Context, err error) error {
	var ce *codec.Error
	var ec codec.ErrCoder
	switch {
	case err == nil, errors.As(err, &ce), errors.As(err, &ec), ctx.Err() != nil:
		return err
	}
	s.log.Warn("mcp: task store", "err", err)
	return errTaskStore
}

// signals returns the task store's TaskSignals, or nil.
func (s *Server) signals() TaskSignals {
	sig, _ := s.tasks.Store.(TaskSignals)
	return sig
}

// signalTask tells the other instances that task id of scope sc
// changed, when the store carries signals; a failure only delays them
// to their next read of the store.
func (s *Server) signalTask(ctx context.Context, sc taskScope, id string) {
	if sig := s.signals(); sig != nil {
		if err := sig.Signal(context.WithoutCancel(ctx), sc.key, id); err != nil {
			s.log.Debug("mcp: task signal", "err", err)
		}
	}
}

// watchTask returns a channel that receives (capacity 1, never closed)
// after each signal of task id of scope sc, and the func that stops it;
// a nil channel when the store has no signals or they fail now.
func (s *Server) watchTask(ctx context.Context, sc taskScope, id string, also chan struct{}) (<-chan struct{}, func()) {
	sig := s.signals()
	if sig == nil {
		return nil, func() {}
	}
	poke := make(chan struct{}, 1)
	stop, err := sig.Watch(ctx, sc.key, id, func() {
		select {
		case poke <- struct{}{}:
		default:
		}
		if also != nil {
			select {
			case also <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		s.log.Debug("mcp: task watch", "err", err)
		return nil, func() {}
	}
	return poke, stop
}

// cancelPolls is how many poll intervals (TaskOptions.PollInterval) a
// task running here goes between two reads of its record, when the store
// has signals: a cancellation whose signal was lost reaches it that late.
const cancelPolls = 5

// watchRun ends the run of task id of scope sc here (cancels tctx, via
// rt.cancel) once its record has ended or is gone: a tasks/cancel served
// by another instance, which poke (watchTask's, waking rt at each signal
// too: answers to input requests stored elsewhere) tells. It runs on a
// goroutine of its own while the task runs, with a store that has
// signals or a lease, and renews the task's lease.
func (s *Server) watchRun(tctx context.Context, sc taskScope, id string, rt *runningTask, poke <-chan struct{}) {
	every := cancelPolls * s.tasks.PollInterval
	if lease := s.tasks.Lease; lease > 0 {
		every = min(every, lease/3)
	}
	poll := time.NewTimer(every)
	defer poll.Stop()
	for {
		var ended bool
		select {
		case <-tctx.Done():
			return
		case <-poke:
			rec, err := s.loadTask(tctx, sc, id)
			ended = errors.Is(err, errTaskNotFound) || (err == nil && rec.Task.Status.Terminal())
		case <-poll.C:
			ended = s.renewLease(tctx, sc, id)
			poll.Reset(every)
		}
		if ended {
			rt.cancel()
			return
		}
	}
}

// nameTasks keys the tasks of ss by the session's name when its
// transport t gives one; before the session's first message.
func (ss *ServerSession) nameTasks(t SessionTransport) {
	if n, ok := t.(SharedSession); ok && ss.tasks != nil {
		if id := n.SessionID(); id != "" {
			ss.tasks.key = "session:" + id
			ss.tasks.named = n
		}
	}
}
