package transport_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestHTTPHandler_answerHasContentLength: every answer, short or longer
// than net/http's response buffer, goes out with a Content-Length, not
// chunked, on both handlers.
func TestHTTPHandler_answerHasContentLength(t *testing.T) {
	forEachHTTPHandler(t, func(t *testing.T, serve serveRPC) {
		url := rpcURL(t, serve, nil)
		for _, n := range []int{5, 2000, 3000, 100 << 10} {
			msg := strings.Repeat("a", n)
			body := `{"jsonrpc":"2.0","id":7,"method":"echo","params":["` + msg + `"]}`
			want := `{"jsonrpc":"2.0","id":7,"result":["` + msg + `"]}`
			res, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case err != nil:
				t.Fatalf("%d bytes: %v", n, err)
			case res.StatusCode != http.StatusOK || string(got) != want:
				t.Fatalf("%d bytes: %s, %.80s", n, res.Status, got)
			case len(res.TransferEncoding) > 0 || res.Header.Get("Content-Length") != strconv.Itoa(len(want)):
				t.Errorf("%d bytes: Transfer-Encoding %q, Content-Length %q; want %d", n, res.TransferEncoding, res.Header.Get("Content-Length"), len(want))
			}
		}
	})
}
