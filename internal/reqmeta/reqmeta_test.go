package reqmeta

import (
	"reflect"
	"testing"

	"github.com/mcpwire/mcpwire/codec"
)

// dupParams are params, each with its names given once or twice at some
// depth, for View.DuplicateName.
var dupParams = []string{
	`{"name":"echo","arguments":{"message":"hello"}}`,
	`{"name":"echo","arguments":{"message":"hello","message":"again"}}`,
	`{"name":"echo","name":"echo","arguments":{}}`,
	`{"name":"echo","arguments":{},"arguments":{}}`,
	`{"arguments":{"a":{"b":1,"b":2}},"name":"x"}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{},"roots":{}}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1","name":"b"}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/logLevel":"info"},"_meta":{"io.modelcontextprotocol/clientInfo":{}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/logLevel":"info"},"_meta":{}}`,
	`{"name":"echo","_meta":{},"_meta":{}}`,
	`{"name":"echo","_meta":{"progressToken":1,"progressToken":2}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":{"a":1,"a":2}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/logLevel":[{"a":1,"a":2}]}}`,
	`{"name":{"a":1,"a":2}}`,
	`{"na\u006de":"echo","name":"echo"}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersio\u006e":"x","io.modelcontextprotocol/protocolVersion":"y"}}`,
	`{"name":"echo","other":1,"other":2}`,
	`{"name":"echo","inputResponses":{"a":{},"a":{}},"requestState":"s"}`,
	`{"name":"echo","arguments":[1,{"k":1,"k":1}]}`,
	`{"name":"echo","arguments":{"":0,"":0}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/clientInfo":[{"":0,"":0}]}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/clientCapabilities":{"":0}}}`,
	`{"name":"echo","_meta":[]}`,
	`[{"a":1,"a":2}]`,
	`{}`,
	// The usual stateless tools/call (readCall) and its near misses.
	`{"name":"echo","arguments":{"message":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"info"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":"debug"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"a","name":"b"}}}`,
	`{"name":"echo","arguments":{"a":1,"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"x","io.modelcontextprotocol/protocolVersion":"y"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"x","progressToken":1}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"x"},"task":{}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion" :"x"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion": "x"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"x" }}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"x"} }`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersionX":"x"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocol":"x"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/":"x"}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol\/logLevel":"x"}}`,
	`{"name":"echo","arguments":{},"_meta":{}}`,
	`{"name":"echo","arguments":{},"_meta":[]}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":{}},"_meta":{}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"":0,"":0}}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/clientCapabilities":[1,{"k":1,"k":2}]}}`,
	`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":null}}`,
	`{"name":"echo","arguments":{},"_met":{"io.modelcontextprotocol/logLevel":1}}`,
}

// TestView_duplicateName checks that the check spared the names Read
// compared finds what codec.DuplicateName finds.
func TestView_duplicateName(t *testing.T) {
	dups := 0
	for _, p := range dupParams {
		if _, _, err := codec.NewScanner(nil).Scan([]byte(p)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		checkDuplicateName(t, []byte(p))
		if codec.DuplicateName([]byte(p)) >= 0 {
			dups++
		}
	}
	if dups < len(dupParams)/2 {
		t.Errorf("%d of %d params have a name twice: the table tests too little", dups, len(dupParams))
	}
}

func checkDuplicateName(t *testing.T, params []byte) {
	t.Helper()
	if _, _, err := codec.NewScanner(nil).Scan(params); err != nil {
		return // params a Scanner refused never reach it
	}
	var m, walked View
	read := m.Read(params)
	if walk := walked.walk(params); read != walk || !reflect.DeepEqual(m, walked) {
		t.Errorf("%s: Read gave %v, %+v; the walk %v, %+v", params, read, m, walk, walked)
	}
	if got, want := m.DuplicateName(params), codec.DuplicateName(params); got != want {
		t.Errorf("%s: DuplicateName = %d, codec.DuplicateName = %d", params, got, want)
	}
}

// Read takes the usual tools/call params, in either era, by their bytes
// (readCall), and leaves what differs from them to the walk.
func TestView_readCall(t *testing.T) {
	for _, c := range []struct {
		params string
		took   bool
	}{
		{`{"name":"echo","arguments":{"message":"hello"}}`, true},
		{`{"name":"echo","arguments":{"message":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, true},
		{`{"name":"e","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, true},
		{`{"name":"echo","arguments":{},"_meta":{}}`, false},
		{`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":"info","progressToken":1}}`, false},
		{`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/logLevel":"info"}}`, false},
		{`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":"info"},"task":{}}`, false},
		{`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel": "info"}}`, false},
	} {
		params := []byte(c.params)
		var m View
		if took := m.readCall(params); took != c.took {
			t.Errorf("%s: readCall took it: %v, want %v", params, took, c.took)
		} else if !took && !reflect.DeepEqual(m, View{}) {
			t.Errorf("%s: readCall refused it but set %+v", params, m)
		}
		checkDuplicateName(t, params)
	}
}

// FuzzViewDuplicateName checks View.DuplicateName against
// codec.DuplicateName on any params.
func FuzzViewDuplicateName(f *testing.F) {
	for _, p := range dupParams {
		f.Add([]byte(p))
	}
	f.Fuzz(checkDuplicateName)
}
