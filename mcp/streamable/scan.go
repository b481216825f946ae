package streamable

import (
	"sync"

	"github.com/mcpwire/mcpwire/codec"
)

// bodyScanner classifies the bodies an HTTP handler receives (POSTs of
// Streamable HTTP and of HTTP+SSE), with scanners it pools. Safe for
// concurrent use.
type bodyScanner struct {
	limits   codec.Limits // of the scanners
	scanners sync.Pool
}

// classify scans body once to learn what the transport must do with it;
// the session's connection scans it again to serve it (a scan costs far
// less than the HTTP exchange around it). The ids of its requests are
// collected only when wantIDs: an answer as an event stream needs them.
func (b *bodyScanner) classify(body []byte, wantIDs bool) (bodyInfo, error) {
	sc, _ := b.scanners.Get().(*codec.Scanner)
	if sc == nil {
		sc = codec.NewScanner(&b.limits)
	}
	defer b.scanners.Put(sc)
	msgs, batch, err := sc.Scan(body)
	info := bodyInfo{batch: batch}
	if err != nil {
		return info, err
	}
	info.quiet = len(msgs) > 0
	for i := range msgs {
		m := &msgs[i]
		switch m.Kind {
		case codec.KindRequest:
			info.answerDue = true
			if wantIDs {
				info.ids = append(info.ids, string(m.ID))
			}
			if !batch && isInitialize(m) {
				info.initialize = true
			}
			info.quiet = info.quiet && isMethod(m, "ping")
		case codec.KindInvalid:
			info.answerDue = true
			info.invalid = !batch
			info.quiet = false
		case codec.KindResult, codec.KindError:
		default:
			info.quiet = false
		}
	}
	return info, nil
}

// requestIDs returns the ids of the requests of body, a body classify
// accepted, as received.
func (b *bodyScanner) requestIDs(body []byte) []string {
	info, _ := b.classify(body, true)
	return info.ids
}
