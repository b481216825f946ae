package main

import (
	"bytes"
	"net/http"

	"github.com/valyala/fasthttp"
)

// The floor (-impl floor) is a baseline, not a server anyone should use:
// it shows what the HTTP stack and the kernel cost per call, since no
// server on fasthttp answers faster. It runs on the fasthttp.Server that
// transport.NewFastHTTPServer returns (the options cmd/demoserver's
// -fast-rpc server has) and answers exactly the calls
// bench/outside/check.lua makes by byte search: no JSON parsing, no
// JSON-RPC validation, no session, no handler. Its answers are what
// check.lua checks and no more:
//
//   - POST / and POST /rpc (check.lua's modes rpc and rpc-array): the id
//     is echoed and the result is the params as sent, or for test_echo
//     (go-ethereum's name for the echo) the params with their outer
//     brackets removed, i.e. the one element of check.lua's array;
//   - POST /mcp (mode mcp): initialize is answered with protocol version
//     floorVersion and the session id floorSession (any Mcp-Session-Id is
//     accepted afterwards), a message without "id" with 202 and no body
//     (notifications/initialized), and anything else as a tools/call of
//     echo: a result of one text block holding arguments.message as sent.
//
// A body in which the members it looks for are not found is answered 400
// with a JSON-RPC error -32600 (id null); another path 404; another
// method 405.

// floorVersion is the MCP version the floor's initialize answer names:
// the one outside/run.sh initializes with.
const floorVersion = "2025-11-25"

// floorSession is the Mcp-Session-Id the floor's initialize answer
// gives: fixed, as long as the ids mcpwire issues (16 random bytes in
// base32, 26 characters), so that wrk sends the same header as to
// mcpwire.
const floorSession = "FLOORFLOORFLOORFLOORFLOOR0"

var (
	keyID      = []byte(`"id":`)
	keyParams  = []byte(`"params":`)
	keyMessage = []byte(`"message":"`)
	keyInit    = []byte(`"method":"initialize"`)
	keyGethEco = []byte(`"method":"test_echo"`)
	jsonType   = []byte("application/json")

	floorInit = `,"result":{"protocolVersion":"` + floorVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}}`
	floorBad  = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the floor answers only the calls of bench/outside/check.lua"}}`)
)

// floor is the floor's fasthttp.RequestHandler.
func floor(rc *fasthttp.RequestCtx) {
	if !rc.IsPost() {
		rc.SetStatusCode(http.StatusMethodNotAllowed)
		return
	}
	body := rc.PostBody()
	var ok bool
	switch string(rc.Path()) {
	case "/", "/rpc":
		ok = floorRPC(rc, body)
	case "/mcp":
		ok = floorMCP(rc, body)
	default:
		rc.SetStatusCode(http.StatusNotFound)
		return
	}
	if !ok {
		rc.Response.ResetBody()
		rc.SetStatusCode(http.StatusBadRequest)
		rc.SetBody(floorBad)
	}
	rc.SetContentTypeBytes(jsonType)
}

// floorRPC answers a JSON-RPC call at / or /rpc: the id echoed, the
// params (or for test_echo their one element) as the result.
func floorRPC(rc *fasthttp.RequestCtx, body []byte) bool {
	id, ok := floorID(body)
	if !ok {
		return false
	}
	i := bytes.Index(body, keyParams)
	end := bytes.LastIndexByte(body, '}')
	if i < 0 || end < i {
		return false
	}
	result := bytes.TrimSpace(body[i+len(keyParams) : end])
	if bytes.Contains(body, keyGethEco) {
		if len(result) < 2 || result[0] != '[' || result[len(result)-1] != ']' {
			return false
		}
		result = result[1 : len(result)-1]
	}
	floorAnswer(rc, id, `,"result":`, result, `}`)
	return true
}

// floorMCP answers a Streamable HTTP POST at /mcp: initialize, a
// notification, or a tools/call of echo.
func floorMCP(rc *fasthttp.RequestCtx, body []byte) bool {
	id, ok := floorID(body)
	switch {
	case !ok:
		if bytes.Contains(body, keyID) {
			return false
		}
		rc.SetStatusCode(http.StatusAccepted) // a notification
		return true
	case bytes.Contains(body, keyInit):
		rc.Response.Header.Set("Mcp-Session-Id", floorSession)
		floorAnswer(rc, id, floorInit, nil, "")
		return true
	}
	i := bytes.Index(body, keyMessage)
	if i < 0 {
		return false
	}
	msg := body[i+len(keyMessage):]
	end := bytes.IndexByte(msg, '"')
	if end < 0 {
		return false
	}
	floorAnswer(rc, id, `,"result":{"content":[{"type":"text","text":"`, msg[:end], `"}]}}`)
	return true
}

// floorID returns the bytes of body's id: what follows "id": up to the
// next comma or closing brace.
func floorID(body []byte) ([]byte, bool) {
	i := bytes.Index(body, keyID)
	if i < 0 {
		return nil, false
	}
	id := body[i+len(keyID):]
	end := bytes.IndexAny(id, ",}")
	if end <= 0 {
		return nil, false
	}
	return bytes.TrimSpace(id[:end]), true
}

// floorAnswer appends {"jsonrpc":"2.0","id":ID, then before, mid and
// after, to rc's response body, status 200.
func floorAnswer(rc *fasthttp.RequestCtx, id []byte, before string, mid []byte, after string) {
	r := &rc.Response
	r.AppendBodyString(`{"jsonrpc":"2.0","id":`)
	r.AppendBody(id)
	r.AppendBodyString(before)
	r.AppendBody(mid)
	r.AppendBodyString(after)
}
