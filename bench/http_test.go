package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bytedance/sonic"
)

// pinnedVersion is the protocol version every client here asks for: the
// latest that all three libraries negotiate through initialize.
const pinnedVersion = "2025-11-25"

// loopbackClient keeps enough idle connections for every pipelined caller
// (the default keeps 2 per host, so 64 callers would dial and close
// connections all the time) and never consults a proxy.
func loopbackClient() *http.Client {
	return &http.Client{
		// No Accept-Encoding: no server here compresses, and wrk's
		// check.lua (the outside rows' client) asks for none either.
		Transport: &http.Transport{MaxIdleConns: 2 * callers, MaxIdleConnsPerHost: 2 * callers, DisableCompression: true},
		Timeout:   30 * time.Second,
	}
}

// plainHTTP serves h on loopback and speaks Streamable HTTP to it with
// nothing but net/http and a JSON decoder: initialize, then
// notifications/initialized, then each call one POST with the session id
// and the protocol version, answered application/json (an SSE answer is
// a failure: the handler must be in JSON response mode). The same client
// for every server, so that only the servers differ.
func plainHTTP(tb testing.TB, h http.Handler) (caller, func()) {
	return plainHTTPOf(tb, h, false)
}

// plainHTTPEvents is plainHTTP accepting answers as event streams too,
// for handlers in their default mode: the answer is the data of the
// stream's last event that has any.
func plainHTTPEvents(tb testing.TB, h http.Handler) (caller, func()) {
	return plainHTTPOf(tb, h, true)
}

// plainHTTPStateless is plainHTTPEvents speaking 2026-07-28: no
// initialize, no session; each call carries its _meta and the headers
// that mirror it.
func plainHTTPStateless(tb testing.TB, h http.Handler) (caller, func()) {
	return plainHTTPClient(tb, h, &plainClient{events: true, stateless: true})
}

func plainHTTPOf(tb testing.TB, h http.Handler, events bool) (caller, func()) {
	return plainHTTPClient(tb, h, &plainClient{events: events})
}

func plainHTTPClient(tb testing.TB, h http.Handler, p *plainClient) (caller, func()) {
	hs := httptest.NewServer(h)
	p.url, p.hc = hs.URL+"/mcp", loopbackClient()
	stop := func() {
		p.end()
		p.hc.CloseIdleConnections()
		hs.Close()
	}
	if p.stateless {
		return p.call, stop
	}
	if err := p.initialize(); err != nil {
		stop()
		tb.Fatal(err)
	}
	return p.call, stop
}

type plainClient struct {
	url       string
	hc        *http.Client
	session   string
	events    bool // answers may be event streams
	stateless bool // 2026-07-28: calls carry _meta and mirroring headers
	id        atomic.Int64
}

// statelessMeta is the _meta of plainClient's calls under 2026-07-28.
const statelessMeta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// post sends one JSON-RPC message; the caller closes the response body.
func (p *plainClient) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("User-Agent", "") // none, as from wrk: the headers are the protocol's and the body's
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
		req.Header.Set("Mcp-Protocol-Version", pinnedVersion)
	}
	if p.stateless { // every body is a tools/call of echo
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "echo")
	}
	return p.hc.Do(req)
}

// answer reads a JSON answer into v: the body, or with p.events the
// data of an event stream's last event that has data.
func (p *plainClient) answer(res *http.Response, v any) error {
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s: %s", res.Status, body)
	}
	switch mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); {
	case mt == "application/json":
	case mt == "text/event-stream" && p.events:
		if body = lastEventData(body); body == nil {
			return errors.New("an event stream without data")
		}
	default:
		return fmt.Errorf("content type %q, want application/json: %s", mt, body)
	}
	return plainJSON.Unmarshal(body, v)
}

// plainJSON is plainClient's decoder: sonic matching keys exactly (as
// MCP's are), not encoding/json, whose cost of some 50 instructions a
// byte outweighed what the servers differ by (a 2026-07-28 answer is
// about 100 bytes longer: some 8,000 instructions a call in the client).
var plainJSON = sonic.Config{CaseSensitive: true}.Froze()

// lastEventData returns the data of the last event of stream that has
// any (its data lines joined by newlines, as the SSE specification
// says), or nil.
func lastEventData(stream []byte) []byte {
	var last, data []byte
	for line := range bytes.Lines(stream) {
		line = bytes.TrimRight(line, "\r\n")
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
			continue
		}
		if len(line) == 0 && len(data) > 0 {
			last, data = data, nil
		}
	}
	if len(data) > 0 { // the stream ended without an empty line
		last = data
	}
	return last
}

func (p *plainClient) initialize() error {
	ctx := context.Background()
	res, err := p.post(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+pinnedVersion+`","capabilities":{},"clientInfo":{"name":"bench-plain","version":"1"}}}`))
	if err != nil {
		return err
	}
	var init struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := p.answer(res, &init); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if init.Result.ProtocolVersion != pinnedVersion {
		return fmt.Errorf("initialize: version %q", init.Result.ProtocolVersion)
	}
	p.session = res.Header.Get("Mcp-Session-Id")
	res, err = p.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		return fmt.Errorf("notifications/initialized: status %s", res.Status)
	}
	return nil
}

func (p *plainClient) call(ctx context.Context, msg string) (string, error) {
	id := p.id.Add(1)
	quoted, err := json.Marshal(msg)
	if err != nil {
		return "", err
	}
	body := make([]byte, 0, 128+len(statelessMeta)+len(quoted))
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = strconv.AppendInt(body, id, 10)
	body = append(body, `,"method":"tools/call","params":{"name":"echo","arguments":{"message":`...)
	body = append(body, quoted...)
	body = append(body, '}')
	if p.stateless {
		body = append(body, statelessMeta...)
	}
	body = append(body, `}}`...)
	res, err := p.post(ctx, body)
	if err != nil {
		return "", err
	}
	var a struct {
		ID     int64 `json:"id"`
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := p.answer(res, &a); err != nil {
		return "", err
	}
	switch {
	case a.Error != nil:
		return "", fmt.Errorf("error %d: %s", a.Error.Code, a.Error.Message)
	case a.ID != id:
		return "", fmt.Errorf("answer to id %d, want %d", a.ID, id)
	case a.Result.IsError || len(a.Result.Content) != 1 || a.Result.Content[0].Type != "text":
		return "", fmt.Errorf("unexpected result %+v", a.Result)
	}
	return a.Result.Content[0].Text, nil
}

// end deletes the session (a server that does not track sessions may
// refuse; that is fine).
func (p *plainClient) end() {
	if p.session == "" {
		return
	}
	req, err := http.NewRequest(http.MethodDelete, p.url, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", p.session)
	req.Header.Set("Mcp-Protocol-Version", pinnedVersion)
	if res, err := p.hc.Do(req); err == nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}
