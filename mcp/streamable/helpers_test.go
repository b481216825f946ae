package streamable_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/internal/mcptest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

// Helpers shared with package mcp's tests.
var (
	echoServer = mcptest.EchoServer
	addEcho    = mcptest.AddEcho
	must       = mcptest.Must
	waitErr    = mcptest.WaitErr
)

type (
	logBuffer = mcptest.LogBuffer
	wireMsg   = mcptest.WireMsg
)
