package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/router"
)

// The tasks extension (io.modelcontextprotocol/tasks) is how protocol
// version 2026-07-28 has tasks. It runs on the engine of 2025-11-25's
// (the same TaskOptions, store and lifetimes); what differs is the wire
// and who decides:
//
//   - A request declares the extension in its _meta's client
//     capabilities (ClientCapabilities.Extensions); server/discover
//     declares it in ServerCapabilities.Extensions. A request that did
//     not declare it never gets a task: tasks/get, tasks/update and
//     tasks/cancel are -32021 naming the extension, and so is tools/call
//     of a tool whose TaskSupport is "required"; one whose TaskSupport is
//     "optional" runs as a plain call.
//   - The server decides, not the client (a task member of the params is
//     ignored): a tool whose TaskSupport is optional or required runs as
//     a task from the start; any other tool's handler may hand the rest
//     of its work to a task with StartTask (after input gathered with
//     Elicit and the like, through multi-round-trip requests).
//   - tools/call answers such a call with the task itself, flat, with
//     resultType "task": taskId, status, createdAt, lastUpdatedAt, ttlMs
//     and pollIntervalMs. tasks/get answers the task with, by its status,
//     the tool's result (completed, isError or not), the JSON-RPC error
//     (failed: protocol errors alone) or the input requests outstanding
//     (input_required). tasks/update answers those, tasks/cancel asks
//     for the end; both answer an empty result, as does a cancel of a
//     task that has ended. There is no tasks/result nor tasks/list
//     (-32601), and an unknown (or expired) task id is -32602.
//   - A task is bound to the authenticated principal of the request that
//     made it (the store's session key), not to a connection: any
//     request of that principal reaches it by its id, on any connection
//     of any instance sharing the TaskStore.
//   - In a tool running as such a task, Elicit, Sample, Roots and Inputs
//     become the task's input requests: the task is input_required until
//     tasks/update has answered every one of them, and the call returns
//     the answers. Each key names one request over the task's lifetime
//     (the Input's Key, or "input", followed by a number). An answer the
//     store holds reaches a tool running on another instance at its next
//     poll (TaskOptions.PollInterval).

// TasksExtension is the identifier of the tasks extension of protocol
// version 2026-07-28, a key of ClientCapabilities.Extensions and
// ServerCapabilities.Extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// TaskFunc is the work a tool handler leaves to a task (StartTask): it
// runs with the request, on a context that outlives the call and ends
// with the task's lifetime or its cancellation, and returns the tool's
// result as a handler does.
type TaskFunc func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// StartTask ends a tool handler's part of a call by leaving the rest, f,
// to a task of the tasks extension (2026-07-28), when the request may
// get one: the server has tasks (ServerOptions.Tasks), the request is of
// a stateless version, declares TasksExtension, and is not running as a
// task already. The handler returns what StartTask returns, and the call
// is answered with the task. Otherwise f runs at once, on ctx, and
// StartTask returns its result: the call is answered as if the handler
// had done the work itself. It is for a handler that decides late, such
// as one that gathers input first (Elicit under 2026-07-28 asks through
// multi-round-trip requests before the task exists, and in it through
// the task's input requests).
func StartTask(ctx context.Context, req *CallToolRequest, f TaskFunc) (*CallToolResult, error) {
	ss := req.Session
	if ss == nil || !ss.stateless() || ss.ext != nil || ss.srv.tasks == nil || !ss.declaresTasks() {
		return f(ctx, req)
	}
	ss.ext = &extRun{rest: f}
	return nil, nil
}

// extRun ties a session of a stateless version to the tasks extension:
// in is the task whose tool the session runs (its questions become the
// task's input requests), or rest what the tool handler of the session's
// request left to a new task (StartTask).
type extRun struct {
	in   *taskInput
	rest TaskFunc
}

// taskIn returns the task whose tool ss runs, or nil (also for a nil
// ss).
func (ss *ServerSession) taskIn() *taskInput {
	if ss == nil || ss.ext == nil {
		return nil
	}
	return ss.ext.in
}

// rest returns what the tool handler of the request ss serves left to a
// task, or nil.
func (ss *ServerSession) rest() TaskFunc {
	if ss.ext == nil {
		return nil
	}
	return ss.ext.rest
}

// declaresTasks reports whether the request ss serves declared the tasks
// extension.
func (ss *ServerSession) declaresTasks() bool {
	if ss.clientCaps == nil {
		return false
	}
	_, ok := ss.clientCaps.Extensions[TasksExtension]
	return ok
}

// Errors of the tasks extension.
var (
	// errTasksUndeclared answers a request that needs the extension it
	// did not declare.
	errTasksUndeclared = codec.NewError(codec.CodeMissingRequiredClientCapability, "Missing required client capability: "+TasksExtension).
				WithData(&requiredCapabilities{&ClientCapabilities{Extensions: map[string]any{TasksExtension: map[string]any{}}}})
	// errTaskKeys answers tasks/update without its inputResponses.
	errTaskKeys = invalidParams("Invalid params: inputResponses must be an object whose members answer the task's inputRequests")
)

// extScope is the scope of the extension's tasks made by the request
// ctx serves: the tasks of its principal.
func (s *Server) extScope(ctx context.Context) taskScope {
	return taskScope{run: s.extTasks, key: "ext:" + string(principalID(ctx)), ext: true}
}

// extGate returns the error a request ss serves to tasks/get, update or
// cancel is refused with, or nil: -32601 without tasks or outside a
// stateless version (tasks/update), -32021 without the extension.
func (s *Server) extGate(ss *ServerSession) error {
	switch {
	case s.tasks == nil:
		return errNoTasks
	case !ss.declaresTasks():
		return errTasksUndeclared
	}
	return nil
}

// extTaskInfo is a task as the extension lays it out.
type extTaskInfo struct {
	TaskID         string     `json:"taskId"`
	Status         TaskStatus `json:"status"`
	StatusMessage  string     `json:"statusMessage,omitempty"`
	CreatedAt      string     `json:"createdAt"`
	LastUpdatedAt  string     `json:"lastUpdatedAt"`
	TTLMs          *int64     `json:"ttlMs"`
	PollIntervalMs int64      `json:"pollIntervalMs,omitempty"`
}

// ext returns t as the extension lays it out.
func (t *Task) ext() extTaskInfo {
	return extTaskInfo{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTLMs: t.TTL, PollIntervalMs: t.PollInterval}
}

// extTask is the result of a tools/call answered with a task
// (ResultType "task") and of tasks/get (the task in detail).
type extTask struct {
	ResultType string `json:"resultType,omitempty"`
	extTaskInfo
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage            `json:"result,omitempty"`
	Error         *taskError                 `json:"error,omitempty"`
}

// extGetTask serves tasks/get of the extension.
func (s *Server) extGetTask(ctx context.Context, ss *ServerSession, p *TaskIDParams) (any, error) {
	if err := s.extGate(ss); err != nil {
		return nil, err
	}
	rec, err := s.loadTask(ctx, s.extScope(ctx), p.TaskID)
	if err != nil {
		return nil, err
	}
	t := &extTask{extTaskInfo: rec.Task.ext()}
	switch rec.Task.Status {
	case TaskInputRequired:
		t.InputRequests = rec.Inputs
	case TaskCompleted:
		t.Result = rec.Result
	case TaskFailed:
		t.Error = rec.Error
	}
	return t, nil
}

// UpdateTaskParams are the params of tasks/update (the tasks extension,
// 2026-07-28): the client's answers to input requests of the task, by
// key.
type UpdateTaskParams struct {
	Meta           Meta            `json:"_meta,omitempty"`
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses"`
}

// extUpdateTask serves tasks/update: the answers to input requests
// outstanding are stored for the tool, which is woken; answers to other
// keys, or to a task that has ended, are ignored. An answer that is not a valid result of its
// request's method is -32602, and nothing is stored.
func (s *Server) extUpdateTask(ctx context.Context, ss *ServerSession, _ *router.Request, p *UpdateTaskParams) (any, error) {
	if !ss.stateless() {
		return nil, errNoTasks
	}
	if err := s.extGate(ss); err != nil {
		return nil, err
	}
	if codec.KindOf(p.InputResponses) != codec.ValueObject {
		return nil, errTaskKeys
	}
	var answers map[string]json.RawMessage
	if err := codec.UnmarshalExact(p.InputResponses, &answers); err != nil {
		return nil, errTaskKeys
	}
	sc := s.extScope(ctx)
	err := s.updateLive(ctx, sc, p.TaskID, func(rec *taskRecord) error {
		n := 0
		for key, raw := range answers {
			q, ok := rec.Inputs[key]
			if !ok {
				continue // not outstanding: ignored
			}
			var in struct {
				Method string `json:"method"`
			}
			if err := json.Unmarshal(q, &in); err != nil {
				return err
			}
			if err := decodeAnswer(key, in.Method, raw, resultOf(in.Method)); err != nil {
				return err
			}
			if rec.Answers == nil {
				rec.Answers = map[string]json.RawMessage{}
			}
			rec.Answers[key] = raw
			delete(rec.Inputs, key)
			n++
		}
		if n == 0 {
			return errNothingAnswered
		}
		if len(rec.Inputs) == 0 { // the tool goes on
			rec.Task.Status, rec.Task.StatusMessage = TaskWorking, ""
		}
		rec.Task.LastUpdatedAt = time.Now().UTC().Format(taskTimeFormat)
		return nil
	})
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, errTaskNotFound
	case err != nil && !errors.Is(err, errNothingAnswered) && !errors.Is(err, errTaskEnded):
		return nil, s.storeErr(ctx, err)
	case err == nil:
		sc.run.wakeTask(p.TaskID)
		s.signalTask(ctx, sc, p.TaskID)
	}
	return Empty{}, nil
}

// errNothingAnswered leaves a task as it was: tasks/update answered none
// of its input requests.
var errNothingAnswered = errors.New("mcp: no input request answered")

// resultOf returns a new value of the result of an input request's
// method.
func resultOf(method string) any {
	switch method {
	case "elicitation/create":
		return new(ElicitResult)
	case "sampling/createMessage":
		return new(CreateMessageResult)
	}
	return new(ListRootsResult)
}

// wakeTask tells the running task id, if it runs here, that some of its
// input requests have been answered.
func (st *sessionTasks) wakeTask(id string) {
	st.mu.Lock()
	if rt := st.running[id]; rt != nil {
		select {
		case rt.wake <- struct{}{}:
		default:
		}
	}
	st.mu.Unlock()
}

// extCancelTask serves tasks/cancel of the extension: a task that has
// not ended becomes cancelled and its tool's context is cancelled; one
// that has ended is left as it is. Either way the answer is empty.
func (s *Server) extCancelTask(ctx context.Context, ss *ServerSession, p *TaskIDParams) (any, error) {
	if err := s.extGate(ss); err != nil {
		return nil, err
	}
	sc := s.extScope(ctx)
	err := s.updateLive(ctx, sc, p.TaskID, func(rec *taskRecord) error {
		rec.Task.Status = TaskCancelled
		rec.Task.StatusMessage = "The task was cancelled by request."
		rec.Task.LastUpdatedAt = time.Now().UTC().Format(taskTimeFormat)
		rec.Inputs = nil
		return nil
	})
	switch {
	case errors.Is(err, ErrTaskNotFound):
		return nil, errTaskNotFound
	case errors.Is(err, errTaskEnded):
	case err != nil:
		return nil, s.storeErr(ctx, err)
	default:
		sc.run.mu.Lock()
		if rt := sc.run.running[p.TaskID]; rt != nil {
			rt.cancel()
		}
		sc.run.mu.Unlock()
		s.signalTask(ctx, sc, p.TaskID)
	}
	return Empty{}, nil
}
