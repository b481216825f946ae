package mcp

import (
	"context"
	"maps"
	"sync"
	"time"
)

// A task waiting on its client: while a tool running as a task has a
// request out to the client (sampling, elicitation, roots), the task is
// input_required, and back to working once every such request has been
// answered; each change is stored and told with
// notifications/tasks/status. The requests carry the related-task _meta
// that ties them to the task.

// taskContext is what the context of a tool running as a task knows of
// its task.
type taskContext struct {
	ss *ServerSession
	id string

	mu      sync.Mutex // held while the task's status changes
	waiting int        // requests out to the client
}

type taskContextKey struct{}

// withTask returns ctx for the tool of task id of ss.
func withTask(ctx context.Context, ss *ServerSession, id string) context.Context {
	return context.WithValue(ctx, taskContextKey{}, &taskContext{ss: ss, id: id})
}

// taskOf returns the task whose tool ctx runs on ss, or nil.
func taskOf(ctx context.Context, ss *ServerSession) *taskContext {
	tc, _ := ctx.Value(taskContextKey{}).(*taskContext)
	if tc == nil || tc.ss != ss {
		return nil
	}
	return tc
}

// TaskIDFromContext returns the id of the task a tool handler runs as
// (tools/call as a task of 2025-11-25, or of the tasks extension under
// 2026-07-28), or "" when it does not run as one.
func TaskIDFromContext(ctx context.Context) string {
	if tc, _ := ctx.Value(taskContextKey{}).(*taskContext); tc != nil {
		return tc.id
	}
	if ti := SessionFromContext(ctx).taskIn(); ti != nil {
		return ti.id
	}
	return ""
}

// awaitInput marks the task input_required while a request to the client
// is out (the first of them changes the status), and returns the func
// that ends the wait (the last of them changes it back to working).
func (tc *taskContext) awaitInput(ctx context.Context, method string) func() {
	ctx = context.WithoutCancel(ctx)
	tc.mu.Lock()
	tc.waiting++
	if tc.waiting == 1 {
		tc.ss.srv.setTaskStatus(ctx, tc.ss, tc.id, TaskInputRequired, "Waiting for the client to answer "+method)
	}
	tc.mu.Unlock()
	return func() {
		tc.mu.Lock()
		tc.waiting--
		if tc.waiting == 0 {
			tc.ss.srv.setTaskStatus(ctx, tc.ss, tc.id, TaskWorking, "")
		}
		tc.mu.Unlock()
	}
}

// setTaskStatus moves a task that has not ended to status (working or
// input_required) and tells the client; a task that has ended, or is
// gone, is left as it is.
func (s *Server) setTaskStatus(ctx context.Context, ss *ServerSession, id string, status TaskStatus, msg string) {
	var task Task
	err := s.updateLive(ctx, sessionScope(ss), id, func(rec *taskRecord) error {
		rec.Task.Status, rec.Task.StatusMessage = status, msg
		rec.Task.LastUpdatedAt = time.Now().UTC().Format(taskTimeFormat)
		task = rec.Task
		return nil
	})
	if err == nil {
		_ = ss.notify(ctx, "notifications/tasks/status", &task)
	}
}

// relatedTaskMeta returns meta and the related-task key for task id, in
// a new map.
func relatedTaskMeta(meta Meta, id string) Meta {
	m := maps.Clone(meta)
	if m == nil {
		m = Meta{}
	}
	m[RelatedTaskMetaKey] = &RelatedTaskMetadata{TaskID: id}
	return m
}

// withRelatedTask returns the params of a request to the client with the
// related-task _meta of task id, in a copy.
func withRelatedTask(params any, id string) any {
	switch p := params.(type) {
	case *CreateMessageParams:
		q := *p
		q.Meta = relatedTaskMeta(p.Meta, id)
		return &q
	case *ElicitParams:
		q := *p
		q.Meta = relatedTaskMeta(p.Meta, id)
		return &q
	case nil:
		return &metaOnly{Meta: relatedTaskMeta(nil, id)}
	}
	return params
}

// metaOnly is the params of a request that has no params but _meta.
type metaOnly struct {
	Meta Meta `json:"_meta,omitempty"`
}

// relatedTaskID returns the task id of a related-task _meta, or "".
func relatedTaskID(meta Meta) string {
	switch v := meta[RelatedTaskMetaKey].(type) {
	case map[string]any:
		id, _ := v["taskId"].(string)
		return id
	case *RelatedTaskMetadata:
		return v.TaskID
	}
	return ""
}
