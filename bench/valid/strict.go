package valid

// Case is a malformed input. RFC 8259 (with RFC 3629's UTF-8) rejects
// every one but the lone surrogate, which its grammar allows and I-JSON
// (RFC 7493) rejects: Grammar says which.
type Case struct {
	Name    string
	Input   string
	Grammar bool // RFC 8259's grammar rejects it
}

// Cases are the strictness table's rows.
var Cases = []Case{
	{"invalid UTF-8", "{\"text\":\"caf\xe9\"}", true},
	{"overlong UTF-8", "{\"text\":\"\xc0\xaf\"}", true},
	{"bad escape", `{"text":"\q"}`, true},
	{"lone surrogate", `{"text":"\ud800"}`, false},
	{"trailing comma", `{"a":[1,2,],}`, true},
	{"raw control character", "{\"text\":\"a\tb\"}", true},
	{"leading zero", `{"n":012}`, true},
}

// Accepts reports, for each of Cases, whether impl accepts the input.
func Accepts(impl Impl) []bool {
	valid := impl.New()
	out := make([]bool, len(Cases))
	for i, c := range Cases {
		out[i] = valid([]byte(c.Input))
	}
	return out
}
