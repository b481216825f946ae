package bench

import (
	"context"
	"strconv"
	"sync"
	"testing"
)

// TestEchoAnswersAreCorrect runs every implementation of every table
// (BenchmarkToolsCall's and BenchmarkRPCEcho's): a message that needs
// escaping comes back intact, and concurrent callers each get their own
// answer.
func TestEchoAnswersAreCorrect(t *testing.T) {
	for _, bench := range []struct {
		name   string
		tables []table
	}{{"ToolsCall", transports}, {"RPCEcho", rpcTransports}} {
		for _, tr := range bench.tables {
			for _, im := range tr.impls {
				t.Run(bench.name+"/"+tr.name+"/"+im.name, func(t *testing.T) { checkAnswers(t, im) })
			}
		}
	}
}

// checkAnswers starts im and checks its answers: a message that needs
// escaping, then concurrent callers.
func checkAnswers(t *testing.T, im impl) {
	call, stop := im.start(t)
	defer stop()
	ctx := context.Background()
	const tricky = "hello, \"world\" \\ é ☃ \n\t</script> \u2028"
	got, err := call(ctx, tricky)
	if err != nil || got != tricky {
		t.Fatalf("got %q, %v; want %q", got, err, tricky)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		msg := "caller " + strconv.Itoa(g)
		wg.Go(func() {
			for range 4 {
				if got, err := call(ctx, msg); err != nil || got != msg {
					t.Errorf("got %q, %v; want %q", got, err, msg)
					return
				}
			}
		})
	}
	wg.Wait()
}
