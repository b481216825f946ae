package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/codec"
	"github.com/mcpwire/mcpwire/conn"
	"github.com/mcpwire/mcpwire/mcp/streamable"
	"github.com/mcpwire/mcpwire/transport"
)

// target is where the load goes (the command's argument).
type target struct {
	kind string   // "stdio", "tcp", "unix", "ws", "http"
	url  string   // as given (for tcp, unix, ws, http)
	argv []string // stdio: the command and its arguments
}

// byteStream reports whether t's connections are framed byte streams
// (stdio, tcp, unix), not HTTP or WebSocket messages.
func (t target) byteStream() bool {
	return t.kind == "stdio" || t.kind == "tcp" || t.kind == "unix"
}

// parseTarget reads the TARGET argument.
func parseTarget(s string) (target, error) {
	if cmd, ok := strings.CutPrefix(s, "stdio:"); ok {
		argv := strings.Fields(cmd)
		if len(argv) == 0 {
			return target{}, fmt.Errorf("target %s: stdio: needs a command", s)
		}
		return target{kind: "stdio", url: s, argv: argv}, nil
	}
	scheme, _, ok := strings.Cut(s, "://")
	if !ok {
		return target{}, fmt.Errorf("target %s: want stdio:CMD ARGS, tcp://HOST:PORT, unix://PATH, ws://HOST:PORT/PATH or http://HOST:PORT/PATH", s)
	}
	switch scheme {
	case "tcp", "unix":
		if _, _, err := transport.ParseAddr(s); err != nil {
			return target{}, fmt.Errorf("target %s: %v", s, err)
		}
	case "ws", "http":
	case "wss", "https":
		scheme = strings.TrimSuffix(scheme, "s")
	default:
		return target{}, fmt.Errorf("target %s: unknown scheme %q", s, scheme)
	}
	return target{kind: scheme, url: s}, nil
}

// dialer opens the run's connections.
type dialer struct {
	t       target
	framing codec.Framing
	mcp     bool
	header  http.Header
	stderr  io.Writer // a stdio server's stderr
	posts   int       // HTTP POSTs in flight per connection at most
	// pipeline is how many of them share a TCP connection (loadgen's own
	// HTTP client: -pipeline).
	pipeline int
	spawned  []*process // the stdio servers started, for their CPU time
}

// lines reports whether the connections are newline-framed byte streams.
func (d *dialer) lines() bool {
	return d.t.byteStream() && d.framing == codec.Newline
}

// dial opens one connection; with -mcp it has done MCP's handshake.
func (d *dialer) dial(ctx context.Context) (conn.Stream, error) {
	var (
		s          conn.Stream
		negotiated func(string)
		err        error
	)
	switch d.t.kind {
	case "stdio":
		s, err = d.spawn()
	case "tcp", "unix":
		network, addr, _ := transport.ParseAddr(d.t.url)
		var nc net.Conn
		var nd net.Dialer
		if nc, err = nd.DialContext(ctx, network, addr); err == nil {
			s = conn.NewByteStream(nc, d.framing, nil)
		}
	case "ws":
		s, err = transport.DialWebSocket(ctx, d.t.url, &transport.WebSocketOptions{Header: d.header})
	case "http":
		if u, ok := direct(d.t.url); ok {
			s, negotiated, err = newHTTPStream(u, d.header, d.posts, d.pipeline, d.mcp)
		} else if d.mcp {
			s, negotiated = streamable.NewClientStream(d.t.url, &streamable.ClientOptions{HTTPClientOptions: transport.HTTPClientOptions{Header: d.header, MaxConcurrent: d.posts}})
		} else {
			s = transport.NewHTTPStream(d.t.url, &transport.HTTPClientOptions{Header: d.header, MaxConcurrent: d.posts})
		}
	default:
		err = fmt.Errorf("target kind %q", d.t.kind)
	}
	if err != nil {
		return nil, err
	}
	if d.mcp {
		if err := handshake(ctx, s, negotiated); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// direct returns the URL of an http:// target reached without a proxy:
// loadgen's own client serves those (httpclient.go), the engine's the
// others (https://, through a proxy).
func direct(target string) (*url.URL, bool) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, false
	}
	proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u})
	return u, err == nil && proxy == nil
}

// spawn starts a server on stdio. Closing the stream closes its stdin
// and waits a little for it to exit, then kills it.
func (d *dialer) spawn() (conn.Stream, error) {
	cmd := exec.Command(d.t.argv[0], d.t.argv[1:]...)
	cmd.Stderr = d.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("target %s: %v", d.t.url, err)
	}
	p := &process{cmd: cmd, in: in, out: out}
	d.spawned = append(d.spawned, p)
	return conn.NewByteStream(p, d.framing, nil), nil
}

// serversCPU is the CPU time (user and system) the stdio servers started
// have used over their lives, once they have all exited (their streams
// closed); false when there were none or one has not exited.
func (d *dialer) serversCPU() (time.Duration, bool) {
	var spent time.Duration
	for _, p := range d.spawned {
		st := p.cmd.ProcessState
		if st == nil {
			return 0, false
		}
		spent += st.UserTime() + st.SystemTime()
	}
	return spent, len(d.spawned) > 0
}

// process is a spawned server's stdio as one io.ReadWriteCloser.
type process struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.Reader
}

func (p *process) Read(b []byte) (int, error)  { return p.out.Read(b) }
func (p *process) Write(b []byte) (int, error) { return p.in.Write(b) }

// Close closes the server's stdin, its cue to exit, and waits up to 5s
// for it to do so before killing it.
func (p *process) Close() error {
	p.in.Close()
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-exited
	}
	return nil
}

// protocolVersion is the MCP version loadgen asks for.
const protocolVersion = "2025-11-25"

// initID is the id of loadgen's initialize: a string, apart from the
// numbers of the load's requests.
const initID = `"loadgen-initialize"`

// handshake starts an MCP session on s: initialize, its answer, then
// notifications/initialized. negotiated (if not nil) is told the version
// agreed on.
func handshake(ctx context.Context, s conn.Stream, negotiated func(string)) error {
	init := codec.AppendRequest(nil, []byte(initID), "initialize",
		[]byte(`{"protocolVersion":"`+protocolVersion+`","capabilities":{},"clientInfo":{"name":"mcpwire-loadgen","version":"1"}}`))
	if err := s.Write(s.FrameInPlace(init, 0)); err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	result, err := awaitInit(ctx, s)
	if err != nil {
		return err
	}
	var ir struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := codec.Unmarshal(result, &ir); err != nil || ir.ProtocolVersion == "" {
		return fmt.Errorf("initialize: the answer has no protocolVersion: %s", result)
	}
	if negotiated != nil {
		negotiated(ir.ProtocolVersion)
	}
	note := []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err := s.Write(s.FrameInPlace(note, 0)); err != nil {
		return fmt.Errorf("notifications/initialized: %v", err)
	}
	return nil
}

// awaitInit reads s until initialize's answer (bounded by ctx: the
// stream is closed when it ends) and returns its result.
func awaitInit(ctx context.Context, s conn.Stream) ([]byte, error) {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	scan := codec.NewScanner(nil)
	for {
		msg, err := s.Next()
		if ce, ok := err.(*conn.CallError); ok {
			return nil, fmt.Errorf("initialize: %v", ce.Err)
		}
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return nil, fmt.Errorf("initialize: no answer: %v", err)
		}
		msgs, _, err := scan.Scan(msg)
		if err != nil || len(msgs) != 1 || string(msgs[0].ID) != initID {
			continue // a notification (a log), or not for us
		}
		switch m := msgs[0]; m.Kind {
		case codec.KindResult:
			return append([]byte(nil), m.Result...), nil
		case codec.KindError:
			return nil, fmt.Errorf("initialize: refused: %s", m.ErrorObj)
		default:
			return nil, fmt.Errorf("initialize: a bad answer: %s", msg)
		}
	}
}
