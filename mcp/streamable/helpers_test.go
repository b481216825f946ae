package streamable_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/internal/mcptest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		// fasthttp's idle-worker cleaner sleeps out its period after its
		// server stops (serveFast).
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"))
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
