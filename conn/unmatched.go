package conn

// Unmatched says why a response of the peer reached no caller: see
// Options.OnUnmatched.
type Unmatched uint8

const (
	// UnmatchedUnknownID is a response whose id is none this session
	// sent: not a decimal number it issued (null among them, as a peer
	// answers a request it could not read, or a batch it refuses whole).
	UnmatchedUnknownID Unmatched = iota + 1
	// UnmatchedNoCaller is a response to an id this session sent whose
	// call no longer waits: it was answered already (a duplicate), or
	// its caller gave up (its context ended, or its write failed).
	UnmatchedNoCaller
)

// String names u.
func (u Unmatched) String() string {
	switch u {
	case UnmatchedUnknownID:
		return "unknown id"
	case UnmatchedNoCaller:
		return "no caller"
	}
	return "unmatched(?)"
}
