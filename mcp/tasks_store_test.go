package mcp_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/internal/taskstoretest"
	"github.com/mcpwire/mcpwire/mcp"
)

func TestMemoryTaskStore_contract(t *testing.T) {
	taskstoretest.Run(t, func(*testing.T) mcp.TaskStore { return mcp.NewMemoryTaskStore() })
}
