package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// taskInput is how a tool running as a task of the tasks extension asks
// its client: its questions become the task's input requests, stored
// with the task, and it waits for tasks/update to store the answers.
type taskInput struct {
	srv  *Server
	sc   taskScope
	id   string
	wake <-chan struct{} // the running task's: some answer has come
}

// taskSession returns the session a task of the extension runs its tool
// on: that of the request that made it (rs), whose questions go to the
// task (ti) rather than into the request's input_required result, and
// which sends no log message (the request has been answered: nothing
// goes with it any more).
func (s *Server) taskSession(rs *ServerSession, ti *taskInput) *ServerSession {
	ts := &ServerSession{srv: s, home: rs.home, done: rs.done, transport: rs.transport,
		version: rs.version, vlevel: rs.vlevel, clientCaps: rs.clientCaps, clientInfo: rs.clientInfo, ext: &extRun{in: ti}}
	ts.level.Store(math.MaxInt32)
	ts.c.Store(rs.c.Load())
	ts.state.Store(stateInitialized)
	return ts
}

// taskInputRequest is an input request as the task stores it and
// tasks/get shows it.
type taskInputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// errNotAnswered: not every input request of the tool has its answer yet.
var errNotAnswered = errors.New("mcp: input requests not answered yet")

// ask puts the questions asks to the client as input requests of the
// task (which becomes input_required), then waits until every one has
// its answer, decodes the answers into results (in order) and sets the
// task working again. It fails when ctx ends first (the task cancelled,
// or out of time) or the task has ended.
func (ti *taskInput) ask(ctx context.Context, asks []ask, results []any) error {
	keys := make([]string, len(asks))
	err := ti.srv.updateLive(ctx, ti.sc, ti.id, func(rec *taskRecord) error {
		if rec.Inputs == nil {
			rec.Inputs = map[string]json.RawMessage{}
		}
		for i, a := range asks {
			keys[i] = rec.newKey(a.key)
			params := a.params
			if params == nil {
				params = struct{}{}
			}
			raw, err := codec.AppendValue(nil, &taskInputRequest{Method: a.method, Params: params})
			if err != nil {
				return err
			}
			rec.Inputs[keys[i]] = raw
		}
		rec.Task.Status, rec.Task.StatusMessage = TaskInputRequired, "Waiting for the client's input."
		rec.Task.LastUpdatedAt = time.Now().UTC().Format(taskTimeFormat)
		return nil
	})
	if err != nil {
		return ti.failed(ctx, err)
	}
	var poll *time.Timer
	for {
		err := ti.srv.updateLive(ctx, ti.sc, ti.id, func(rec *taskRecord) error {
			for _, k := range keys {
				if _, ok := rec.Answers[k]; !ok {
					return errNotAnswered
				}
			}
			for i, k := range keys {
				if err := codec.UnmarshalExact(rec.Answers[k], results[i]); err != nil {
					return err // checked by tasks/update: not expected
				}
				delete(rec.Answers, k)
			}
			if len(rec.Inputs) == 0 {
				rec.Task.Status, rec.Task.StatusMessage = TaskWorking, ""
			}
			rec.Task.LastUpdatedAt = time.Now().UTC().Format(taskTimeFormat)
			return nil
		})
		if !errors.Is(err, errNotAnswered) {
			if poll != nil {
				poll.Stop()
			}
			if err != nil {
				return ti.failed(ctx, err)
			}
			return nil
		}
		// Woken by tasks/update here, or at the poll interval for one
		// served by another instance sharing the store.
		if poll == nil {
			poll = time.NewTimer(ti.srv.tasks.PollInterval)
		} else {
			poll.Reset(ti.srv.tasks.PollInterval)
		}
		select {
		case <-ti.wake:
		case <-poll.C:
		case <-ctx.Done():
			poll.Stop()
			return ctx.Err()
		}
	}
}

// failed is the error a question of the task fails with: the context's
// once it has ended, else err.
func (ti *taskInput) failed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, errTaskEnded) || errors.Is(err, ErrTaskNotFound) {
		return context.Canceled
	}
	return err
}

// newKey returns a key for a new input request of the task: want (or
// "input") followed by a number no key of the task has had, so that a key
// names one request over the task's lifetime.
func (rec *taskRecord) newKey(want string) string {
	if want == "" {
		want = "input"
	}
	rec.Keys++
	return want + "-" + strconv.Itoa(rec.Keys)
}
