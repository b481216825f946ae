package mcp_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestTaskInputRequired runs a tool as a task that elicits, then samples:
// while each request is out the task is input_required (tasks/get and
// notifications/tasks/status say so), then working again; the requests
// and the client's answers carry the related-task _meta.
func TestTaskInputRequired(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			srv := mcp.NewServer(nil, &mcp.ServerOptions{Tasks: &mcp.TaskOptions{}})
			must(t, srv.AddTool(&mcp.Tool{Name: "ask", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					e, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "name?"})
					if err != nil {
						return nil, err
					}
					m, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
						Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}}})
					if err != nil {
						return nil, err
					}
					text := mcp.TaskIDFromContext(ctx) + " " + relatedOf(e.Meta) + " " + relatedOf(m.Meta)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
				}))
			var mu sync.Mutex
			var statuses []mcp.TaskStatus
			var related []string
			asked := make(chan struct{})
			answer := make(chan struct{})
			c := mcp.NewClient(nil, &mcp.ClientOptions{
				// Tasks as a request param are of 2025-11-25: 2026-07-28
				// moved them to an extension.
				ProtocolVersion: mcp.LatestVersion,
				ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					related = append(related, relatedOf(req.Params.Meta))
					mu.Unlock()
					close(asked)
					select {
					case <-answer:
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{}}, nil
				},
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					mu.Lock()
					related = append(related, relatedOf(req.Params.Meta))
					mu.Unlock()
					return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "m", Content: []mcp.Content{&mcp.TextContent{Text: "yo"}}}, nil
				},
				TaskStatusHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.Task) {
					mu.Lock()
					statuses = append(statuses, p.Status)
					mu.Unlock()
				},
			})
			cs := tr.connect(t, srv, c)
			ctx := ctx10(t)
			cr, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "ask"})
			if err != nil {
				t.Fatal(err)
			}
			id := cr.Task.TaskID
			<-asked
			g, err := cs.GetTask(ctx, id)
			if err != nil || g.Status != mcp.TaskInputRequired || g.StatusMessage != "Waiting for the client to answer elicitation/create" {
				t.Fatalf("while eliciting: %+v, %v", g, err)
			}
			close(answer)
			r, err := cs.TaskResult(ctx, id)
			if err != nil || firstTextOf(r) != id+" "+id+" "+id {
				t.Fatalf("result %+v, %v", r, err)
			}
			if g, err := cs.GetTask(ctx, id); err != nil || g.Status != mcp.TaskCompleted {
				t.Fatalf("after: %+v, %v", g, err)
			}
			want := []mcp.TaskStatus{mcp.TaskInputRequired, mcp.TaskWorking, mcp.TaskInputRequired, mcp.TaskWorking, mcp.TaskCompleted}
			deadline := time.Now().Add(5 * time.Second)
			for {
				mu.Lock()
				got := slices.Clone(statuses)
				rel := slices.Clone(related)
				mu.Unlock()
				if slices.Equal(got, want) {
					if !slices.Equal(rel, []string{id, id}) {
						t.Fatalf("related tasks of the requests %q", rel)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("statuses %v, want %v", got, want)
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}

// TestTaskInputRequired_cancelledWhileWaiting cancels a task waiting on
// the client: it stays cancelled when the wait ends.
func TestTaskInputRequired_cancelledWhileWaiting(t *testing.T) {
	srv := mcp.NewServer(nil, &mcp.ServerOptions{Tasks: &mcp.TaskOptions{}})
	must(t, srv.AddTool(&mcp.Tool{Name: "ask", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			_, err := req.Session.ListRoots(ctx)
			return nil, err
		}))
	asked := make(chan struct{})
	c := mcp.NewClient(nil, &mcp.ClientOptions{
		// Tasks as a request param are of 2025-11-25: 2026-07-28 moved
		// them to an extension.
		ProtocolVersion: mcp.LatestVersion,
		RootsHandler: func(ctx context.Context, _ *mcp.ClientSession) (*mcp.ListRootsResult, error) {
			close(asked)
			<-ctx.Done() // the server cancels the request with the task
			return nil, ctx.Err()
		},
	})
	cs := connect(t, srv, c)
	ctx := ctx10(t)
	cr, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "ask"})
	if err != nil {
		t.Fatal(err)
	}
	<-asked
	if g, err := cs.GetTask(ctx, cr.Task.TaskID); err != nil || g.Status != mcp.TaskInputRequired {
		t.Fatalf("%+v, %v", g, err)
	}
	if g, err := cs.CancelTask(ctx, cr.Task.TaskID); err != nil || g.Status != mcp.TaskCancelled {
		t.Fatalf("%+v, %v", g, err)
	}
	_, err = cs.TaskResult(ctx, cr.Task.TaskID)
	if !isCode(err, -32005) {
		t.Fatalf("result: %v", err)
	}
	if g, err := cs.GetTask(ctx, cr.Task.TaskID); err != nil || g.Status != mcp.TaskCancelled {
		t.Fatalf("%+v, %v", g, err)
	}
	if mcp.TaskIDFromContext(ctx) != "" {
		t.Fatal("a task id outside of a task")
	}
}

// relatedOf returns the task id of a decoded related-task _meta.
func relatedOf(meta mcp.Meta) string {
	v, _ := meta[mcp.RelatedTaskMetaKey].(map[string]any)
	s, _ := v["taskId"].(string)
	return s
}
