package bench

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/bench/echo"
)

// TestWorkloads runs every workload once for every implementation that
// can do it, with the answers checked as the benchmarks check them: W1,
// W2, W3 over net.Pipe, W6 over loopback TCP (20 connections), W4 over
// stdio, W8 over Streamable HTTP. (W9's servers are BenchmarkRPCEcho's,
// checked by TestEchoAnswersAreCorrect.) (W5 is TestValidate; W7 runs W2 in a child process.)
func TestWorkloads(t *testing.T) {
	for _, name := range echo.Names {
		t.Run("echo/impl="+name, func(t *testing.T) {
			cli, stop := startEcho(t, name)
			defer stop()
			vr := newValueReader(cli, 64<<10)
			var buf []byte
			var err error
			for id := range int64(10) { // W1
				if buf, err = echoOnce(cli, vr, buf, id); err != nil {
					t.Fatalf("W1: %v", err)
				}
			}
			if _, ok := echo.NoBatches[name]; !ok { // W3
				for base := int64(100); base < 300; base += batchSize {
					if err := batchRoundTrip(cli, vr, appendBatch(nil, base), base); err != nil {
						t.Fatalf("W3: %v", err)
					}
				}
			}
			cli2, stop2 := startEcho(t, name)
			defer stop2()
			if err := pipeline(nil, cli2, 3000); err != nil { // W2
				t.Fatalf("W2: %v", err)
			}
			l := startConns(t, name, 20) // W6
			defer l.stop()
			if err := l.round(perConn, 0); err != nil {
				t.Fatalf("W6: %v", err)
			}
		})
	}
	for _, im := range mcpImpls {
		t.Run("tools/call/impl="+im.name, func(t *testing.T) { checkAnswers(t, im) })
	}
	for _, im := range httpToolImpls { // W8
		t.Run("http/tools/call/impl="+im.name, func(t *testing.T) { checkAnswers(t, im) })
	}
	for _, im := range listImpls {
		t.Run("tools/list/impl="+im.name, func(t *testing.T) {
			list, stop := im.start(t)
			defer stop()
			if err := checkList(list); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestEchoBatchRefusals checks that what echo.NoBatches says each peer
// does with a batch is still what it does: sourcegraph closes the stream,
// x/exp/jsonrpc2 answers nothing.
func TestEchoBatchRefusals(t *testing.T) {
	for name := range echo.NoBatches {
		t.Run(name, func(t *testing.T) {
			cli, stop := startEcho(t, name)
			defer stop()
			go cli.Write(appendBatch(nil, 0))
			cli.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			n, err := cli.Read(make([]byte, 64))
			switch {
			case n > 0:
				t.Fatalf("answered a batch: update echo.NoBatches")
			case name == "sourcegraph" && err != io.EOF:
				t.Fatalf("read %v, want the stream closed (EOF)", err)
			case name == "x-exp-jsonrpc2" && !isTimeout(err):
				t.Fatalf("read %v, want no answer (a timeout)", err)
			}
		})
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestClientCatchesWrongAnswers: a server that answers wrongly fails the
// raw client, so a benchmark of it fails too.
func TestClientCatchesWrongAnswers(t *testing.T) {
	for _, c := range []struct{ name, answer string }{
		{"wrong result", `{"jsonrpc":"2.0","id":%d,"result":"hello"}`},
		{"error", `{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"no"}}`},
		{"same id", `{"jsonrpc":"2.0","id":0,"result":"hello, world"}`},
		{"no version", `{"id":%d,"result":"hello, world"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cli, srv := net.Pipe()
			go liar(srv, c.answer)
			defer cli.Close()
			if err := pipeline(nil, cli, 10); err == nil {
				t.Fatal("W2 passed a wrong server")
			}
		})
	}
	if _, err := answerID([]byte(`{"jsonrpc":"2.0","id":1,"result":"hello, world","error":null}`)); err == nil {
		t.Error("an answer with both result and error passed")
	}
	if err := answers([]byte(`{"a":1}`), func(int64) error { return nil }); err == nil {
		t.Error("an object passed as a batch")
	}
	for _, arr := range []string{
		`[{"jsonrpc":"2.0","id":1,"result":"hello, world"},{"jsonrpc":"2.0","id":2,"result":"hello"}]`,
		`[{"jsonrpc":"2.0","id":1,"result":"hello, world"}, {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}]`,
		`[{"jsonrpc":"2.0","id":1,"result":"hello, world"},{"id":2,"result":"hello, world"}]`,
	} {
		if err := answers([]byte(arr), func(int64) error { return nil }); err == nil {
			t.Errorf("a wrong batch answer passed: %s", arr)
		}
	}
}

// liar answers each line of nc with answer, %d replaced by the request's
// id when it has one.
func liar(nc net.Conn, answer string) {
	defer nc.Close()
	br := bufio.NewReader(nc)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		id := strings.TrimPrefix(line[strings.Index(line, `"id":`):], `"id":`)
		id = id[:strings.IndexByte(id, ',')]
		if _, err := io.WriteString(nc, strings.ReplaceAll(answer, "%d", id)+"\n"); err != nil {
			return
		}
	}
}

// TestEchoAnswerAgreesWithDecoding holds the clients' one-pass reader to
// a full decode: what it accepts, the decode accepts with the same id and
// length; what it refuses is left to the decode (answerID), so a wrong
// answer still fails.
func TestEchoAnswerAgreesWithDecoding(t *testing.T) {
	for _, c := range []struct {
		answer string
		fast   bool // echoAnswer reads it
		good   bool // answerID accepts it
	}{
		{`{"jsonrpc":"2.0","id":7,"result":"hello, world"}`, true, true},
		{`{"id":123456789012345678,"result":"hello, world","jsonrpc":"2.0"}`, true, true},
		{`{"result":"hello, world","jsonrpc":"2.0","id":0}`, true, true},
		{`{"jsonrpc":"2.0","id":7,"result":"hello, world"},{"x":1}`, true, true},
		{`{"jsonrpc": "2.0", "id": 7, "result": "hello, world"}`, false, true},
		{`{"jsonrpc":"2.0","id":7,"result":"hello,\u0020world"}`, false, true},
		{`{"jsonrpc":"2.0","id":1234567890123456789,"result":"hello, world"}`, false, true},
		{`{"jsonrpc":"2.0","id":07,"result":"hello, world"}`, false, false},
		{`{"jsonrpc":"2.0","id":-7,"result":"hello, world"}`, false, true},
		{`{"jsonrpc":"2.0","id":7,"id":8,"result":"hello, world"}`, false, true},
		{`{"jsonrpc":"2.0","id":7,"result":"hello"}`, false, false},
		{`{"jsonrpc":"2.0","id":7,"result":"hello, world","error":null}`, false, false},
		{`{"jsonrpc":"1.0","id":7,"result":"hello, world"}`, false, false},
		{`{"jsonrpc":"2.0","result":"hello, world"}`, false, false},
		{`{"jsonrpc":"2.0","id":7,"result":"hello, world"`, false, false},
		{`{"jsonrpc":"2.0","id":"7","result":"hello, world"}`, false, false},
	} {
		id, n, fast := echoAnswer([]byte(c.answer))
		if fast != c.fast {
			t.Errorf("echoAnswer(%s) ok = %v, want %v", c.answer, fast, c.fast)
		}
		end := strings.IndexByte(c.answer, '}') + 1
		if fast {
			slow, err := answerIDSlow([]byte(c.answer[:n]))
			if err != nil || slow != id || n != end {
				t.Errorf("echoAnswer(%s) = %d, %d; the decode says %d, %v (length %d)", c.answer, id, n, slow, err, end)
			}
		}
		whole := c.answer // the first answer, if the text holds more
		if end > 0 {
			whole = c.answer[:end]
		}
		if _, err := answerID([]byte(whole)); (err == nil) != c.good {
			t.Errorf("answerID(%s): %v, want accepted %v", c.answer, err, c.good)
		}
	}
}
