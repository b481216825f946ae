package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// TaskOptions turn on tasks (2025-11-25, experimental) for tools/call:
// see ServerOptions.Tasks. Zero members take their defaults.
type TaskOptions struct {
	// Store keeps the tasks (default: NewMemoryTaskStore()).
	Store TaskStore
	// DefaultTTL is the lifetime of a task whose request asks for none
	// (default DefaultTaskTTL); MaxTTL bounds what a request may ask for
	// (default DefaultMaxTaskTTL). A task, its result included, is gone once its
	// lifetime from creation has passed, and a tool still running then is
	// cancelled.
	DefaultTTL, MaxTTL time.Duration
	// PollInterval is the polling interval suggested to clients (default
	// DefaultTaskPollInterval).
	PollInterval time.Duration
	// MaxTasks bounds the live tasks of one session (default DefaultMaxTasks): a
	// task-augmented call beyond it is refused with -32600.
	MaxTasks int
	// Lease is how long a task stays working once the instance running
	// it has stopped vouching for it (it renews the lease every third of
	// it): then the next tasks/get or tasks/result, on any instance,
	// finds it failed, "the instance running the task stopped". Default:
	// DefaultTaskLease with a Store shared by instances (one that has
	// TaskSignals), none otherwise; negative: none, and such a task
	// stays working until its lifetime ends. The instances' clocks must
	// agree to well within it.
	Lease time.Duration
}

// Defaults of TaskOptions.
const (
	DefaultTaskTTL          = 5 * time.Minute
	DefaultMaxTaskTTL       = time.Hour
	DefaultTaskPollInterval = time.Second
	DefaultMaxTasks         = 100
	DefaultTaskLease        = 15 * time.Second
)

// withDefaults returns o with its zero members set.
func (o TaskOptions) withDefaults() *TaskOptions {
	if o.Store == nil {
		o.Store = NewMemoryTaskStore()
	}
	if o.DefaultTTL <= 0 {
		o.DefaultTTL = DefaultTaskTTL
	}
	if o.MaxTTL <= 0 {
		o.MaxTTL = DefaultMaxTaskTTL
	}
	o.DefaultTTL = min(o.DefaultTTL, o.MaxTTL)
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultTaskPollInterval
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = DefaultMaxTasks
	}
	if _, shared := o.Store.(TaskSignals); shared && o.Lease == 0 {
		o.Lease = DefaultTaskLease
	}
	o.Lease = max(o.Lease, 0)
	return &o
}

// tasksCapability is the tasks capability a server with tasks declares.
func tasksCapability() map[string]any {
	return map[string]any{
		"list":     map[string]any{},
		"cancel":   map[string]any{},
		"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}},
	}
}

// sessionTasks are a session's running tasks.
type sessionTasks struct {
	key   string        // the session's key in the task store
	named SharedSession // the transport that named key, if one did

	mu      sync.Mutex
	closed  bool                    // the session has ended: no new tasks
	running map[string]*runningTask // by task id
	wg      sync.WaitGroup          // running task goroutines
}

type runningTask struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once the task's outcome is stored
	wake   chan struct{} // (capacity 1) the client has answered some of its input requests
}

// tasksFor reports whether ss is served tasks: the server has them and the
// session negotiated 2025-11-25.
func (s *Server) tasksFor(ss *ServerSession) bool {
	return s.tasks != nil && ss.version == Version20251125
}

// closeTasks cancels a session's running tasks, waits for them and
// forgets the session's tasks; called once the session has ended.
func (s *Server) closeTasks(ss *ServerSession) {
	st := ss.tasks
	if st == nil {
		return
	}
	st.mu.Lock()
	st.closed = true
	for _, rt := range st.running {
		rt.cancel()
	}
	st.mu.Unlock()
	st.wg.Wait()
	if st.named == nil || st.named.SessionDeleted() {
		_ = s.tasks.Store.DeleteSession(context.Background(), st.key)
	}
}

// newTaskID returns 128 random bits in hex.
func newTaskID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

const taskTimeFormat = "2006-01-02T15:04:05.000Z07:00"

func millis(d time.Duration) int64 { return d.Milliseconds() }

// Task errors answered to clients.
var (
	errTaskNotFound = invalidParams("Failed to retrieve task: Task not found")
	errTaskLimit    = codec.NewError(codec.CodeInvalidRequest, "Invalid Request: too many tasks for this session")
	errNoTasks      = codec.NewError(codec.CodeMethodNotFound, "Method not found")
)

// taskScope is where a task lives: the running tasks it is among, its
// session key in the store, and which tasks it is one of.
type taskScope struct {
	run *sessionTasks
	key string
	ext bool // the tasks extension (2026-07-28), not 2025-11-25's tasks
}

// sessionScope is the scope of the tasks of ss, a session of 2025-11-25.
func sessionScope(ss *ServerSession) taskScope { return taskScope{run: ss.tasks, key: ss.tasks.key} }

// taskRun is the work of a task: a tool call, run on the session given.
type taskRun func(ctx context.Context, ss *ServerSession) (*CallToolResult, error)

// startTask stores a new task of scope sc, whose lifetime ttl asks for
// (nil: the default), starts run on a goroutine of its own and returns
// the result that answers the request: 2025-11-25's CreateTaskResult, or
// the extension's.
func (s *Server) startTask(ctx context.Context, ss *ServerSession, sc taskScope, ttlAsked *int64, run taskRun) (any, error) {
	o := s.tasks
	ttl := o.DefaultTTL
	if ttlAsked != nil && *ttlAsked > 0 {
		ttl = min(time.Duration(*ttlAsked)*time.Millisecond, o.MaxTTL)
	}
	id, err := newTaskID()
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	ttlMS := millis(ttl)
	task := Task{
		TaskID: id, Status: TaskWorking,
		CreatedAt: now.Format(taskTimeFormat), LastUpdatedAt: now.Format(taskTimeFormat),
		TTL: &ttlMS, PollInterval: millis(o.PollInterval),
	}
	rec := &taskRecord{Task: task, Ext: sc.ext}
	if o.Lease > 0 {
		rec.Lease = now.Add(o.Lease).UnixMilli()
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	tasks := sc.run
	tasks.mu.Lock()
	closed := tasks.closed
	tasks.mu.Unlock()
	if closed {
		return nil, ErrNotConnected
	}
	// Not under tasks.mu: a store across the network (extTasks' mu is the
	// server's) would serialise every creation behind one round trip.
	switch err := o.Store.Create(ctx, sc.key, id, data, now.Add(ttl), o.MaxTasks); {
	case errors.Is(err, ErrTaskLimit):
		return nil, errTaskLimit
	case err != nil:
		return nil, s.storeErr(ctx, err)
	}
	tasks.mu.Lock()
	defer tasks.mu.Unlock()
	if tasks.closed { // ended meanwhile: the record is left to its lease or ttl
		return nil, ErrNotConnected
	}
	// The tool outlives the request: its context keeps the request's
	// values, loses its cancellation, and ends with the task's lifetime.
	// Its requests to the client make the task input_required.
	rt := &runningTask{done: make(chan struct{}), wake: make(chan struct{}, 1)}
	tctx, tss := context.WithoutCancel(ctx), ss
	if sc.ext {
		tss = s.taskSession(ss, &taskInput{srv: s, sc: sc, id: id, wake: rt.wake})
		tctx = context.WithValue(tctx, sessionKey{}, tss)
	} else {
		tctx = withTask(tctx, ss, id)
	}
	tctx, rt.cancel = context.WithDeadline(tctx, now.Add(ttl))
	tasks.running[id] = rt
	tasks.wg.Add(1)
	go func() {
		defer tasks.wg.Done()
		res, err := runGuarded(tctx, tss, run)
		s.finishTask(context.WithoutCancel(tctx), ss, sc, id, res, err)
		rt.cancel()
		tasks.mu.Lock()
		delete(tasks.running, id)
		tasks.mu.Unlock()
		close(rt.done)
	}()
	if s.signals() != nil || o.Lease > 0 { // a tasks/cancel served elsewhere; the lease
		// The watch is on before the task is announced: a tasks/cancel
		// the client sends elsewhere as soon as it knows the id signals
		// a watcher that is there.
		poke, stop := s.watchTask(tctx, sc, id, rt.wake)
		tasks.wg.Add(1)
		go func() {
			defer tasks.wg.Done()
			defer stop()
			s.watchRun(tctx, sc, id, rt, poke)
		}()
	}
	if sc.ext {
		return &extTask{ResultType: "task", extTaskInfo: task.ext()}, nil
	}
	return &CreateTaskResult{Task: &task}, nil
}

// runGuarded runs a task's work; a panic of it is an internal error,
// logged with its stack.
func runGuarded(ctx context.Context, ss *ServerSession, run taskRun) (res *CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			ss.srv.log.Error("mcp: task panicked", "panic", v, "stack", string(debug.Stack()))
			res, err = nil, codec.NewError(codec.CodeInternalError, "Internal error")
		}
	}()
	return run(ctx, ss)
}

// finishTask stores a task's outcome — unless the task has ended already
// (cancelled) or is gone — and, under 2025-11-25, tells the client its
// new status. A tool's result with isError fails a task of 2025-11-25
// but completes one of the extension, whose failed status is for
// protocol errors alone.
func (s *Server) finishTask(ctx context.Context, ss *ServerSession, sc taskScope, id string, res *CallToolResult, err error) {
	var rec taskRecord
	switch {
	case err != nil:
		rec.Task.Status = TaskFailed
		rec.Task.StatusMessage = err.Error()
		rec.Error = toTaskError(err)
	default:
		r := *res
		if !sc.ext {
			r.Meta = maps.Clone(r.Meta)
			if r.Meta == nil {
				r.Meta = Meta{}
			}
			r.Meta[RelatedTaskMetaKey] = &RelatedTaskMetadata{TaskID: id}
		}
		raw, e := codec.AppendValue(nil, &r)
		if e != nil {
			rec.Task.Status = TaskFailed
			rec.Task.StatusMessage = e.Error()
			rec.Error = &taskError{Code: int64(codec.CodeInternalError), Message: "Internal error"}
			break
		}
		rec.Result = raw
		rec.Task.Status = TaskCompleted
		if res.IsError && !sc.ext {
			rec.Task.Status = TaskFailed
			rec.Task.StatusMessage = firstText(res)
		}
	}
	if sc.ext && rec.Error != nil {
		rec.Task.StatusMessage = rec.Error.Message // not a Go error's text
	}
	var task Task
	err = s.updateLive(ctx, sc, id, func(cur *taskRecord) error {
		task = cur.Task
		task.Status, task.StatusMessage = rec.Task.Status, rec.Task.StatusMessage
		task.LastUpdatedAt = time.Now().UTC().Format(taskTimeFormat)
		rec.Task, rec.Ext, rec.Keys = task, cur.Ext, cur.Keys
		*cur = rec
		return nil
	})
	if err != nil {
		if !errors.Is(err, errTaskEnded) && !errors.Is(err, ErrTaskNotFound) {
			s.log.Warn("mcp: a task's outcome was not stored", "task", id, "err", err)
		}
		return
	}
	s.signalTask(ctx, sc, id)
	if !sc.ext {
		_ = ss.notify(ctx, "notifications/tasks/status", &task)
	}
}

// errTaskEnded refuses to change a task that has ended.
var errTaskEnded = errors.New("mcp: the task has ended")

// updateLive changes with f the record of task id of scope sc,
// atomically, unless the task has ended (errTaskEnded) or is gone
// (ErrTaskNotFound); an error of f leaves it as it was and is returned.
func (s *Server) updateLive(ctx context.Context, sc taskScope, id string, f func(rec *taskRecord) error) error {
	return s.tasks.Store.Update(ctx, sc.key, id, func(old []byte) ([]byte, error) {
		var rec taskRecord
		if err := json.Unmarshal(old, &rec); err != nil {
			return nil, err
		}
		if rec.Task.Status.Terminal() {
			return nil, errTaskEnded
		}
		if err := f(&rec); err != nil {
			return nil, err
		}
		return json.Marshal(&rec)
	})
}

// toTaskError keeps a tool's protocol error as the JSON-RPC error it would
// have been answered with.
func toTaskError(err error) *taskError {
	var ce *codec.Error
	var ec codec.ErrCoder
	switch {
	case errors.As(err, &ce):
		te := &taskError{Code: int64(ce.Code), Message: ce.Message}
		if ce.Data != nil {
			if raw, e := codec.AppendValue(nil, ce.Data); e == nil {
				te.Data = raw
			}
		}
		return te
	case errors.As(err, &ec):
		return &taskError{Code: int64(ec.ErrCode()), Message: ec.Error()}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &taskError{Code: int64(codec.CodeCancelled), Message: "Request cancelled"}
	}
	return &taskError{Code: int64(codec.CodeInternalError), Message: "Internal error"}
}

// firstText returns the text of a result's first text block.
func firstText(r *CallToolResult) string {
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// loadTask reads a task of scope sc; one whose lease has ended becomes
// failed (loseTask).
func (s *Server) loadTask(ctx context.Context, sc taskScope, id string) (*taskRecord, error) {
	rec, err := s.readTask(ctx, sc, id)
	if err == nil && rec.leaseEnded(time.Now()) {
		return s.loseTask(ctx, sc, id)
	}
	return rec, err
}

// readTask reads a task of scope sc as the store has it.
func (s *Server) readTask(ctx context.Context, sc taskScope, id string) (*taskRecord, error) {
	data, err := s.tasks.Store.Get(ctx, sc.key, id)
	if errors.Is(err, ErrTaskNotFound) {
		return nil, errTaskNotFound
	}
	if err != nil {
		return nil, s.storeErr(ctx, err)
	}
	var rec taskRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// getTask serves tasks/get (under a stateless version, the tasks
// extension's: extGetTask).
func (s *Server) getTask(ctx context.Context, ss *ServerSession, _ *router.Request, p *TaskIDParams) (any, error) {
	if ss.stateless() {
		return s.extGetTask(ctx, ss, p)
	}
	if !s.tasksFor(ss) {
		return nil, errNoTasks
	}
	rec, err := s.loadTask(ctx, sessionScope(ss), p.TaskID)
	if err != nil {
		return nil, err
	}
	return &rec.Task, nil
}

// taskResult serves tasks/result: it waits for the task to end, then
// answers what the tool call would have been answered. A task running on
// another instance sharing the store is waited for by its signals
// (TaskSignals), and by reading the store at each poll interval.
func (s *Server) taskResult(ctx context.Context, ss *ServerSession, _ *router.Request, p *TaskIDParams) (any, error) {
	if !s.tasksFor(ss) {
		return nil, errNoTasks
	}
	var poke <-chan struct{}
	var poll *time.Timer
	defer func() {
		if poll != nil {
			poll.Stop()
		}
	}()
	for watched := false; ; {
		rec, err := s.loadTask(ctx, sessionScope(ss), p.TaskID)
		if err != nil {
			return nil, err
		}
		if rec.Task.Status.Terminal() {
			if e := rec.Error; e != nil {
				ce := codec.NewError(codec.Code(e.Code), e.Message)
				if e.Data != nil {
					ce = ce.WithData(e.Data)
				}
				return nil, ce
			}
			return codec.Raw(rec.Result), nil
		}
		// Wait for the task's goroutine when it runs here, else for a
		// signal or the poll interval (another instance runs it).
		var done <-chan struct{}
		ss.tasks.mu.Lock()
		if rt := ss.tasks.running[p.TaskID]; rt != nil {
			done = rt.done
		}
		ss.tasks.mu.Unlock()
		if done == nil {
			if !watched { // then read again: a signal may have gone by
				watched = true
				var stop func()
				poke, stop = s.watchTask(ctx, sessionScope(ss), p.TaskID, nil)
				defer stop()
				continue
			}
			if poll == nil {
				poll = time.NewTimer(s.tasks.PollInterval)
			} else {
				poll.Reset(s.tasks.PollInterval)
			}
			select {
			case <-poke:
			case <-poll.C:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// cancelTask serves tasks/cancel (under a stateless version, the tasks
// extension's: extCancelTask): the task becomes cancelled (an error
// for one that has ended already) and its tool's context is cancelled.
func (s *Server) cancelTask(ctx context.Context, ss *ServerSession, _ *router.Request, p *TaskIDParams) (any, error) {
	if ss.stateless() {
		return s.extCancelTask(ctx, ss, p)
	}
	if !s.tasksFor(ss) {
		return nil, errNoTasks
	}
	var task Task
	err := s.tasks.Store.Update(ctx, ss.tasks.key, p.TaskID, func(old []byte) ([]byte, error) {
		var rec taskRecord
		if err := json.Unmarshal(old, &rec); err != nil {
			return nil, err
		}
		if rec.Task.Status.Terminal() {
			return nil, invalidParams(fmt.Sprintf("Cannot cancel task: already in terminal status '%s'", rec.Task.Status))
		}
		rec.Task.Status = TaskCancelled
		rec.Task.StatusMessage = "The task was cancelled by request."
		rec.Task.LastUpdatedAt = time.Now().UTC().Format(taskTimeFormat)
		rec.Error = &taskError{Code: int64(codec.CodeCancelled), Message: "Request cancelled: the task was cancelled"}
		task = rec.Task
		return json.Marshal(&rec)
	})
	if errors.Is(err, ErrTaskNotFound) {
		return nil, errTaskNotFound
	}
	if err != nil {
		return nil, s.storeErr(ctx, err)
	}
	ss.tasks.mu.Lock()
	if rt := ss.tasks.running[p.TaskID]; rt != nil {
		rt.cancel()
	}
	ss.tasks.mu.Unlock()
	s.signalTask(ctx, sessionScope(ss), p.TaskID)
	_ = ss.notify(context.WithoutCancel(ctx), "notifications/tasks/status", &task)
	return &task, nil
}

// listTasks serves tasks/list, in pages of ServerOptions.PageSize with
// opaque cursors.
func (s *Server) listTasks(ctx context.Context, ss *ServerSession, _ *router.Request, p *ListTasksParams) (any, error) {
	if !s.tasksFor(ss) {
		return nil, errNoTasks
	}
	after := ""
	if p.Cursor != "" {
		var ok bool
		if after, ok = decodeCursor(p.Cursor); !ok {
			return nil, errInvalidCursor
		}
	}
	ids, data, more, err := s.tasks.Store.List(ctx, ss.tasks.key, after, s.opts.PageSize)
	if err != nil {
		return nil, s.storeErr(ctx, err)
	}
	res := &ListTasksResult{Tasks: make([]*Task, 0, len(data))}
	for _, d := range data {
		var rec taskRecord
		if err := json.Unmarshal(d, &rec); err != nil {
			return nil, err
		}
		res.Tasks = append(res.Tasks, &rec.Task)
	}
	if more && len(ids) > 0 {
		res.NextCursor = encodeCursor(ids[len(ids)-1])
	}
	return res, nil
}
