package streamable

import (
	"net/http"
	"sync"

	"github.com/mcpwire/mcpwire/codec"
)

// Revalidation of cacheable results, the client's side of etag.go (MCP
// 2026-07-28). For each request of a stateless version whose JSON answer
// came with an ETag, the client keeps the tag and the result under the
// request's method and params (the id aside); the same request sent again
// carries If-None-Match with that tag, and a 304 Not Modified is answered
// with the result kept, under the new request's id, as an HTTP cache
// (RFC 9111) would. The server is the judge of freshness, so nothing kept
// goes stale: a changed result comes back whole, with its new tag. How
// long a result may be used without asking at all (ttlMs) is package
// mcp's client cache's business. At most maxValidated results are kept.
type validators struct {
	mu sync.Mutex
	m  map[string]validated
}

// validated is a result kept and its entity tag. result is never written
// after it is kept: a request takes it as it is.
type validated struct {
	tag    string
	result []byte
}

// maxValidated bounds the results a transport keeps for revalidation.
const maxValidated = 256

// validatorKey is the key a request's result is kept under: its method
// and params as sent.
func validatorKey(m *codec.Message) string {
	return string(m.AppendMethod(nil)) + "\x00" + string(m.Params)
}

// get returns what is kept under key.
func (v *validators) get(key string) (validated, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.m[key]
	return e, ok
}

// keep remembers the result of answer, a response that came with tag,
// under key; a full map forgets one result it kept to make room.
func (v *validators) keep(key, tag string, answer []byte) {
	result, ok := codec.Member(answer, "result")
	if !ok || tag == "" {
		return
	}
	e := validated{tag: tag, result: append([]byte(nil), result...)}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = map[string]validated{}
	}
	if _, ok := v.m[key]; !ok && len(v.m) >= maxValidated {
		for k := range v.m {
			delete(v.m, k)
			break
		}
	}
	v.m[key] = e
}

// ask adds If-None-Match to h, the headers of a stateless request with
// this key, when a result is kept for it, and gives the pending call what
// a 304 answers with.
func (v *validators) ask(pc *pendingCall, key string, h http.Header) {
	pc.key = key
	if e, ok := v.get(key); ok {
		h.Set("If-None-Match", e.tag)
		pc.kept = e
	}
}

// notModified answers the call id of pc, which the server answered 304,
// with the result pc kept; false when pc asked nothing of the kind.
func (t *httpClientStream) notModified(pc *pendingCall, id []byte) bool {
	if pc.kept.tag == "" {
		return false
	}
	t.deliver(codec.AppendResult(nil, id, pc.kept.result))
	return true
}
