package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"time"
)

// plan is what one client connection sends: requests and notifications
// with the ids base, base+1, …, and maybe a cut.
type plan struct {
	base  uint64
	kinds []byte // kinds[i] is the kind of id base+i
	// cutAt is the index of the message the cut falls in (-1: none): the
	// connection writes the messages before it whole, cutOff bytes of
	// its frame (0 included: a cut between frames), then closes —
	// abruptly, with a reset, when reset.
	cutAt  int
	cutOff int
	reset  bool
	failed bool // the connection's checks failed: it may have stopped early
}

// newPlan draws n messages and, with probability cut, a cut.
func newPlan(r *rand.Rand, base uint64, n int, cut float64) *plan {
	p := &plan{base: base, kinds: make([]byte, n), cutAt: -1}
	for i := range p.kinds {
		p.kinds[i] = pick(r.IntN(100))
	}
	if r.Float64() < cut {
		p.cutAt = r.IntN(n)
		p.cutOff = r.IntN(len(appendFrame(nil, base+uint64(p.cutAt), p.kinds[p.cutAt])))
		p.reset = r.IntN(2) == 0
	}
	return p
}

// requests is how many of the plan's messages expect an answer.
func (p *plan) requests() int {
	n := 0
	for _, k := range p.kinds {
		if k != kindNote {
			n++
		}
	}
	return n
}

// appendFrame appends the newline-framed message id of kind k.
func appendFrame(dst []byte, id uint64, k byte) []byte {
	if k == kindNote {
		dst = append(dst, `{"jsonrpc":"2.0","method":"note","params":[`...)
		dst = strconv.AppendUint(dst, id, 10)
		return append(dst, "]}\n"...)
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendUint(dst, id, 10)
	dst = append(dst, `,"method":"`...)
	dst = append(dst, methods[k]...)
	return append(dst, "\"}\n"...)
}

// connResult is what one connection saw.
type connResult struct {
	answers int // answers read (on a cut connection: before the cut)
	// timeouts counts calls other than overruns answered -32012: their
	// handler was held up past HandlerTimeout between starting and
	// answering (a machine so loaded that its goroutine did not run).
	// That answer is documented and allowed; the run bounds and reports
	// how many.
	timeouts int
}

// run carries the plan over a new connection to addr, at most window
// requests unanswered at once, and checks every answer: each names a
// request of this plan that was written whole, none twice, each with
// the result or code its kind calls for; and, when the connection is not
// cut, that every request is answered and nothing else comes before the
// server closes on the client's end of input. deadline bounds it all.
func (p *plan) run(dial func(time.Time) (endpoint, error), window int, deadline time.Time) (connResult, error) {
	var res connResult
	nc, err := dial(deadline)
	if err != nil {
		return res, err
	}
	defer nc.Close()
	nc.SetDeadline(deadline)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()

	slots := make(chan struct{}, window)
	written := make(chan error, 1)
	go func() { written <- p.write(ctx, nc, slots) }()

	want := p.requests()
	answered := make([]uint64, (len(p.kinds)+63)/64) // a bit per message
	br := bufio.NewReaderSize(nc, 64<<10)
	var m answer
	for p.cutAt >= 0 || res.answers < want {
		line, err := br.ReadSlice('\n')
		if err != nil {
			cancel()
			werr := <-written
			if p.cutAt >= 0 { // the writer closed it: the end expected
				return res, werr
			}
			return res, fmt.Errorf("connection lost after %d of %d answers: %v (writer: %v)", res.answers, want, err, werr)
		}
		m = answer{}
		if err := json.Unmarshal(line, &m); err != nil {
			return res, fmt.Errorf("answer %q is no JSON: %v", line, err)
		}
		n, ok := parseID(m.ID)
		if !ok || n < p.base || n-p.base >= uint64(len(p.kinds)) {
			return res, fmt.Errorf("answer %q names no request of this connection", line)
		}
		i := int(n - p.base)
		if p.cutAt >= 0 && i > p.cutAt {
			return res, fmt.Errorf("answer %q to a request never sent (cut at %d)", line, p.cutAt)
		}
		if answered[i/64]&(1<<(i%64)) != 0 {
			return res, fmt.Errorf("answer %q is a second one", line)
		}
		answered[i/64] |= 1 << (i % 64)
		if err := m.check(p.kinds[i], &res); err != nil {
			return res, fmt.Errorf("answer %q to a %q: %v", line, methods[p.kinds[i]], err)
		}
		res.answers++
		<-slots
	}
	if err := <-written; err != nil {
		return res, fmt.Errorf("writer: %v", err)
	}
	// Every request is answered: end the input, and the server must
	// close with nothing more to say (an answer to a notification would
	// show here).
	if err := nc.CloseWrite(); err != nil {
		return res, err
	}
	rest, err := io.ReadAll(br)
	if err != nil {
		return res, fmt.Errorf("waiting for the server to close: %v", err)
	}
	if len(rest) > 0 {
		return res, fmt.Errorf("%d bytes after the last answer: %.200q", len(rest), rest)
	}
	return res, nil
}

// write sends the plan, taking a slot of slots before each request and
// flushing whenever it would wait for one; at the cut it writes the
// partial frame and closes the connection.
func (p *plan) write(ctx context.Context, nc endpoint, slots chan struct{}) error {
	bw := bufio.NewWriterSize(nc, 16<<10)
	var buf []byte
	for i, k := range p.kinds {
		buf = appendFrame(buf[:0], p.base+uint64(i), k)
		if i == p.cutAt {
			bw.Write(buf[:p.cutOff])
			bw.Flush()
			nc.Cut(p.reset)
			return nil
		}
		if k != kindNote {
			select {
			case slots <- struct{}{}:
			default:
				if err := bw.Flush(); err != nil {
					return err
				}
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// endpoint is the client's end of a connection to the soak server.
type endpoint interface {
	io.ReadWriteCloser
	SetDeadline(t time.Time) error
	// CloseWrite ends the client's input to the server.
	CloseWrite() error
	// Cut closes both ways at once: abruptly (a TCP reset) when reset.
	Cut(reset bool)
}

// tcpEnd is a loopback TCP connection.
type tcpEnd struct{ *net.TCPConn }

func (e tcpEnd) Cut(reset bool) {
	if reset {
		e.SetLinger(0)
	}
	e.Close()
}

// pipeEnd is the client's end of a pair of OS pipes, as a parent has
// them to a stdio child: it reads the server's output, writes its input.
type pipeEnd struct{ r, w *os.File }

func (e pipeEnd) Read(b []byte) (int, error)  { return e.r.Read(b) }
func (e pipeEnd) Write(b []byte) (int, error) { return e.w.Write(b) }
func (e pipeEnd) CloseWrite() error           { return e.w.Close() }
func (e pipeEnd) Cut(bool)                    { e.Close() }

func (e pipeEnd) SetDeadline(t time.Time) error {
	return errors.Join(e.r.SetDeadline(t), e.w.SetDeadline(t))
}

func (e pipeEnd) Close() error { return errors.Join(e.r.Close(), e.w.Close()) }

// answer is a response as the soak reads it.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// check says whether m is the answer a request of kind k calls for.
func (m *answer) check(k byte, res *connResult) error {
	code := 0
	if m.Error != nil {
		code = m.Error.Code
	}
	if k == kindNote {
		return errors.New("a notification was answered")
	}
	if code == -32012 && m.Result == nil && k != kindOverrun {
		res.timeouts++
		return nil
	}
	switch k {
	case kindOK, kindSlow:
		if m.Error != nil || string(m.Result) != string(m.ID) {
			return errors.New("want its id as the result")
		}
		return nil
	}
	want := -32012 // kindOverrun
	switch k {
	case kindFail:
		want = -32602
	case kindPanic:
		want = -32603
	}
	if code != want || m.Result != nil {
		return fmt.Errorf("want error %d", want)
	}
	return nil
}
