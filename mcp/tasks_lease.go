package mcp

import (
	"context"
	"errors"
	"time"

	"github.com/mcpwire/mcpwire/codec"
)

// A task's lease (TaskOptions.Lease) tells the instances sharing a task
// store that the one running the task is still at it: that one renews it
// every third of it; any instance reading the task past its lease finds
// the instance gone, and the task failed.

// errTaskLost is the outcome of a task whose instance stopped before it
// ended.
var errTaskLost = codec.NewError(codec.CodeInternalError, "Internal error: the instance running the task stopped before it ended")

// leaseEnded reports whether the task has not ended and its lease has.
func (rec *taskRecord) leaseEnded(now time.Time) bool {
	return !rec.Task.Status.Terminal() && rec.Lease != 0 && now.UnixMilli() > rec.Lease
}

// errLeaseLive leaves a task whose lease was renewed meanwhile as it is.
var errLeaseLive = errors.New("mcp: the task's lease is live")

// loseTask fails task id of scope sc, whose lease has ended — unless it
// was renewed or ended meanwhile — and returns its record.
func (s *Server) loseTask(ctx context.Context, sc taskScope, id string) (*taskRecord, error) {
	err := s.updateLive(ctx, sc, id, func(rec *taskRecord) error {
		if !rec.leaseEnded(time.Now()) {
			return errLeaseLive
		}
		rec.Task.Status, rec.Task.StatusMessage = TaskFailed, errTaskLost.Message
		rec.Task.LastUpdatedAt = time.Now().UTC().Format(taskTimeFormat)
		rec.Error = &taskError{Code: int64(errTaskLost.Code), Message: errTaskLost.Message}
		rec.Inputs, rec.Lease = nil, 0
		return nil
	})
	if err == nil {
		s.signalTask(ctx, sc, id)
	}
	return s.readTask(ctx, sc, id)
}

// renewLease extends the lease of task id of scope sc, running here, and
// reports whether the task has ended or is gone (then its run ends). A
// store that fails leaves the run going: the lease may end meanwhile, and
// the task with it.
func (s *Server) renewLease(ctx context.Context, sc taskScope, id string) (ended bool) {
	lease := s.tasks.Lease
	if lease <= 0 {
		rec, err := s.readTask(ctx, sc, id)
		return errors.Is(err, errTaskNotFound) || (err == nil && rec.Task.Status.Terminal())
	}
	err := s.updateLive(ctx, sc, id, func(rec *taskRecord) error {
		rec.Lease = time.Now().Add(lease).UnixMilli()
		return nil
	})
	return errors.Is(err, errTaskEnded) || errors.Is(err, ErrTaskNotFound)
}
