package mcp

import "encoding/json"

// TaskStatus is the state of a task (2025-11-25, experimental).
type TaskStatus string

// Task states: a task starts working and ends completed, failed or
// cancelled, never to change again.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is a final state (completed, failed or
// cancelled).
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// TaskMetadata is the task member of a task-augmented request's params:
// TTL is the lifetime the requestor asks for, in milliseconds from
// creation (nil: the receiver's default).
type TaskMetadata struct {
	TTL *int64 `json:"ttl,omitempty"`
}

// Task is a task's state as tasks/get, tasks/cancel and
// notifications/tasks/status carry it (and each item of tasks/list, there
// without Meta). Times are RFC 3339; TTL is in milliseconds (nil:
// unlimited), PollInterval too (0: none suggested).
type Task struct {
	Meta          Meta       `json:"_meta,omitempty"`
	TaskID        string     `json:"taskId"`
	Status        TaskStatus `json:"status"`
	StatusMessage string     `json:"statusMessage,omitempty"`
	CreatedAt     string     `json:"createdAt"`
	LastUpdatedAt string     `json:"lastUpdatedAt"`
	TTL           *int64     `json:"ttl"`
	PollInterval  int64      `json:"pollInterval,omitempty"`
}

// CreateTaskResult answers a task-augmented request at once: the task
// made to run it.
type CreateTaskResult struct {
	Meta Meta  `json:"_meta,omitempty"`
	Task *Task `json:"task"`
}

// TaskIDParams are the params of tasks/get, tasks/result and tasks/cancel.
type TaskIDParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	TaskID string `json:"taskId"`
}

// ListTasksParams are the params of tasks/list.
type ListTasksParams struct {
	Meta   Meta   `json:"_meta,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListTasksResult is the result of tasks/list.
type ListTasksResult struct {
	Meta       Meta    `json:"_meta,omitempty"`
	Tasks      []*Task `json:"tasks"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// RelatedTaskMetaKey is the _meta key that ties a message to a task; its
// value is a RelatedTaskMetadata.
const RelatedTaskMetaKey = "io.modelcontextprotocol/related-task"

// RelatedTaskMetadata is the value of RelatedTaskMetaKey.
type RelatedTaskMetadata struct {
	TaskID string `json:"taskId"`
}

// taskRecord is what a TaskStore keeps of a task, encoded as JSON: its
// state, and once it has ended the result or the JSON-RPC error that
// tasks/result returns.
type taskRecord struct {
	Task   Task            `json:"task"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *taskError      `json:"error,omitempty"`
	// Ext marks a task of the tasks extension (2026-07-28); the rest is
	// its alone: the input requests outstanding ({"method","params"}) and
	// the answers the tool has not taken yet, by key, and how many keys
	// it has made (see newKey).
	Ext     bool                       `json:"ext,omitempty"`
	Inputs  map[string]json.RawMessage `json:"inputs,omitempty"`
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	Keys    int                        `json:"keys,omitempty"`
	// Lease is when (Unix milliseconds) the task is lost unless the
	// instance running it renews it (0: never; TaskOptions.Lease).
	Lease int64 `json:"lease,omitempty"`
}

// taskError is a JSON-RPC error kept for tasks/result.
type taskError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}
