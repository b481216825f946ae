package transport

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/mcpwire/mcpwire/internal/httpjson"
)

// lingerPause is how long lingerFast waits for more of a refused body
// before it takes the client to be done sending (nginx's
// lingering_timeout, shorter).
const lingerPause = time.Second

// lingerFast is the lingering close of a request whose body fasthttp
// refused, rc.Response holding the answer: it writes the answer, then
// reads and drops what the client still sends — within
// httpjson.LingerBytes and LingerTime, until the client pauses for
// lingerPause or ends — and closes the connection, as httpjson.Linger
// does on net/http. A client that writes its whole body before it reads
// anything then finds the answer rather than a reset. fasthttp's own
// write of the answer, after its ErrorHandler returns, then finds the
// connection closed. It does nothing (fasthttp answers and closes) when
// the request announced a body over LingerBytes or asked for 100
// Continue, or its connection takes no deadline.
func lingerFast(rc *fasthttp.RequestCtx) {
	if rc.Request.Header.ContentLength() > httpjson.LingerBytes || rc.Request.MayContinue() {
		return
	}
	c := rc.Conn()
	end := time.Now().Add(httpjson.LingerTime)
	if c.SetWriteDeadline(end) != nil {
		return
	}
	rc.SetConnectionClose()
	if _, err := rc.Response.WriteTo(c); err != nil {
		c.Close()
		return
	}
	buf := make([]byte, 32<<10)
	for n := 0; n < httpjson.LingerBytes; {
		deadline := time.Now().Add(lingerPause)
		if deadline.After(end) {
			deadline = end
		}
		if c.SetReadDeadline(deadline) != nil {
			break
		}
		k, err := c.Read(buf)
		n += k
		if err != nil {
			break
		}
	}
	c.Close()
}
