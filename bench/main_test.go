package bench

import (
	"testing"

	"go.uber.org/goleak"
)

// Every implementation's stop must end what its start began. ants (under
// mcpwire's pool) starts goroutines when loaded: what runs before the
// tests is ignored. fasthttp's PipelineClient (BenchmarkRPCEcho's HTTP
// client) has no Close: its connection workers end on their own once idle
// for a second (MaxIdleConnDuration); and a stopped fasthttp.Server's
// worker cleaner sleeps out its 10 s before it notices: both are ignored.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent(),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*pipelineConnClient).worker"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*pipelineConnClient).reader"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*pipelineConnClient).writer"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"))
}
