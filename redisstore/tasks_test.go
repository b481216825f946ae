package redisstore_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/internal/taskstoretest"
	"github.com/mcpwire/mcpwire/mcp"
)

func TestTaskStore_contract(t *testing.T) {
	taskstoretest.Run(t, func(t *testing.T) mcp.TaskStore {
		st, _ := newStore(t, "a")
		return st.TaskStore()
	})
}
