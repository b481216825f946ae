package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// envelopeWant is the expected classification of one message. Empty
// strings stand for nil spans.
type envelopeWant struct {
	kind    Kind
	err     *Error
	id      string
	method  string
	params  string
	result  string
	errObj  string
	escaped bool
}

var envelopeCases = []struct {
	name  string
	in    string
	batch bool
	want  []envelopeWant
}{
	// Requests and notifications.
	{"request", `{"jsonrpc":"2.0","method":"tools/list","id":1}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `tools/list`}}},
	{"requestParamsObject", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{"a":[1,{"b":null}]}}}`, false,
		[]envelopeWant{{kind: KindRequest, id: `"a"`, method: `tools/call`, params: `{"name":"x","arguments":{"a":[1,{"b":null}]}}`}}},
	{"requestParamsArray", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `subtract`, params: `[42, 23]`}}},
	{"requestPretty", "{\n  \"jsonrpc\" : \"2.0\" ,\n  \"method\" : \"ping\" ,\n  \"id\" : 9\n}\n", false,
		[]envelopeWant{{kind: KindRequest, id: `9`, method: `ping`}}},
	{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false,
		[]envelopeWant{{kind: KindNotification, method: `notifications/initialized`}}},
	{"notificationParams", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":0.5}}`, false,
		[]envelopeWant{{kind: KindNotification, method: `notifications/progress`, params: `{"progressToken":"t","progress":0.5}`}}},
	{"paramsNullIsAbsent", `{"jsonrpc":"2.0","method":"m","params":null,"id":2}`, false,
		[]envelopeWant{{kind: KindRequest, id: `2`, method: `m`}}},
	{"unknownMembersIgnored", `{"x":{"method":1,"id":[]},"jsonrpc":"2.0","x":[1],"method":"m","id":3,"Method":5,"_meta":{}}`, false,
		[]envelopeWant{{kind: KindRequest, id: `3`, method: `m`}}},

	// The id, echoed byte for byte.
	{"idNull", `{"jsonrpc":"2.0","method":"m","id":null}`, false,
		[]envelopeWant{{kind: KindRequest, id: `null`, method: `m`}}},
	{"idDecimal", `{"jsonrpc":"2.0","method":"m","id":1.50}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1.50`, method: `m`}}},
	{"idHuge", `{"jsonrpc":"2.0","method":"m","id":12345678901234567890}`, false,
		[]envelopeWant{{kind: KindRequest, id: `12345678901234567890`, method: `m`}}},
	{"idNegativeExp", `{"jsonrpc":"2.0","method":"m","id":-1e-5}`, false,
		[]envelopeWant{{kind: KindRequest, id: `-1e-5`, method: `m`}}},
	{"idEscapedString", `{"jsonrpc":"2.0","method":"m","id":"\u00e9"}`, false,
		[]envelopeWant{{kind: KindRequest, id: `"\u00e9"`, method: `m`}}},
	{"idEmptyString", `{"jsonrpc":"2.0","method":"m","id":""}`, false,
		[]envelopeWant{{kind: KindRequest, id: `""`, method: `m`}}},
	{"idBool", `{"jsonrpc":"2.0","method":"m","id":true}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadID, method: `m`}}},
	{"idObject", `{"jsonrpc":"2.0","method":"m","id":{"a":1}}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadID, method: `m`}}},
	{"idArray", `{"jsonrpc":"2.0","method":"m","id":[1]}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadID, method: `m`}}},

	// jsonrpc.
	{"versionMissing", `{"method":"m","id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadVersion, id: `1`, method: `m`}}},
	{"versionWrong", `{"jsonrpc":"2.1","method":"m","id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadVersion, id: `1`, method: `m`}}},
	{"versionNumber", `{"jsonrpc":2.0,"method":"m","id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadVersion, id: `1`, method: `m`}}},
	{"versionSpace", `{"jsonrpc":"2.0 ","method":"m"}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadVersion, method: `m`}}},
	{"versionEscaped", `{"jsonrpc":"\u0032.0","method":"m","id":1}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `m`}}},
	{"versionLongEscaped", `{"jsonrpc":"\u0032.0\u0030\u0030\u0030\u0030\u0030\u0030","method":"m"}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadVersion, method: `m`}}},

	// method.
	{"methodNumberSpecExample", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadMethod}}},
	{"methodNull", `{"jsonrpc":"2.0","method":null,"id":4}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadMethod, id: `4`}}},
	{"methodEscaped", `{"jsonrpc":"2.0","method":"a\/b\u00e9","id":1}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `a\/b\u00e9`, escaped: true}}},
	{"reservedRequest", `{"jsonrpc":"2.0","method":"rpc.discover","id":5}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errReservedMethod, id: `5`, method: `rpc.discover`}}},
	{"reservedEscaped", `{"jsonrpc":"2.0","method":"\u0072pc\u002ex","id":5}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errReservedMethod, id: `5`, method: `\u0072pc\u002ex`, escaped: true}}},
	{"reservedNotification", `{"jsonrpc":"2.0","method":"rpc.x"}`, false,
		[]envelopeWant{{kind: KindNotification, method: `rpc.x`}}},
	{"notReservedNoDot", `{"jsonrpc":"2.0","method":"rpc","id":1}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `rpc`}}},
	{"notReservedCase", `{"jsonrpc":"2.0","method":"RPC.x","id":1}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `RPC.x`}}},

	// params.
	{"paramsString", `{"jsonrpc":"2.0","method":"m","params":"bar","id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadParams, id: `1`, method: `m`}}},
	{"paramsNumber", `{"jsonrpc":"2.0","method":"m","params":3}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadParams, method: `m`}}},
	{"paramsBool", `{"jsonrpc":"2.0","method":"m","params":false,"id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errBadParams, id: `1`, method: `m`}}},

	// Member names, matched exactly after unescaping.
	{"escapedMethodName", `{"jsonrpc":"2.0","m\u0065thod":"m","id":1}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `m`}}},
	{"fullyEscapedNames", `{"\u006a\u0073\u006f\u006e\u0072\u0070\u0063":"2.0","\u006d\u0065\u0074\u0068\u006f\u0064":"m","\u0069\u0064":1,"p\u0061rams":[]}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `m`, params: `[]`}}},
	{"nameCaseSensitive", `{"jsonrpc":"2.0","Method":"m","id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errNoMethod, id: `1`}}},
	{"escapedNameLonger", `{"jsonrpc":"2.0","method":"m","\u0069\u0064x":1}`, false,
		[]envelopeWant{{kind: KindNotification, method: `m`}}},
	{"escapedNameHuge", `{"jsonrpc":"2.0","method":"m","` + strings.Repeat(`\u0069`, 20) + `":1}`, false,
		[]envelopeWant{{kind: KindNotification, method: `m`}}},
	{"escapedNameNUL", `{"jsonrpc":"2.0","method":"m","id\u0000":1}`, false,
		[]envelopeWant{{kind: KindNotification, method: `m`}}},

	// Duplicated members.
	{"duplicateMethod", `{"jsonrpc":"2.0","method":"a","method":"b","id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errDupMember, id: `1`, method: `b`}}},
	{"duplicateID", `{"jsonrpc":"2.0","method":"m","id":1,"id":2}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errDupMember, method: `m`}}},
	{"duplicateEscapedID", `{"jsonrpc":"2.0","method":"m","id":1,"i\u0064":2}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errDupMember, method: `m`}}},
	{"duplicateVersion", `{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m","id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errDupMember, id: `1`, method: `m`}}},
	{"duplicateParams", `{"jsonrpc":"2.0","method":"m","params":[],"params":null,"id":1}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errDupMember, id: `1`, method: `m`}}},
	{"duplicateUnknownIsFine", `{"jsonrpc":"2.0","method":"m","x":1,"x":2,"id":1}`, false,
		[]envelopeWant{{kind: KindRequest, id: `1`, method: `m`}}},

	// Responses.
	{"result", `{"jsonrpc":"2.0","result":{"tools":[]},"id":7}`, false,
		[]envelopeWant{{kind: KindResult, id: `7`, result: `{"tools":[]}`}}},
	{"resultNull", `{"jsonrpc":"2.0","id":"x","result":null}`, false,
		[]envelopeWant{{kind: KindResult, id: `"x"`, result: `null`}}},
	{"error", `{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":"1"}`, false,
		[]envelopeWant{{kind: KindError, id: `"1"`, errObj: `{"code":-32601,"message":"Method not found"}`}}},
	{"errorIDNull", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"},"id":null}`, false,
		[]envelopeWant{{kind: KindError, id: `null`, errObj: `{"code":-32700,"message":"Parse error"}`}}},
	{"responseBoth", `{"jsonrpc":"2.0","result":1,"error":{"code":1},"id":1}`, false,
		[]envelopeWant{{kind: KindBadResponse, err: errBadResponse, id: `1`}}},
	{"responseNoID", `{"jsonrpc":"2.0","result":1}`, false,
		[]envelopeWant{{kind: KindBadResponse, err: errBadResponse}}},
	{"responseBadVersion", `{"jsonrpc":"1.0","result":1,"id":1}`, false,
		[]envelopeWant{{kind: KindBadResponse, err: errBadVersion, id: `1`}}},
	{"responseErrorNotObject", `{"jsonrpc":"2.0","error":"boom","id":1}`, false,
		[]envelopeWant{{kind: KindBadResponse, err: errBadResponse, id: `1`}}},
	{"responseBadID", `{"jsonrpc":"2.0","result":1,"id":false}`, false,
		[]envelopeWant{{kind: KindBadResponse, err: errBadID}}},
	{"responseDuplicate", `{"jsonrpc":"2.0","result":1,"result":2,"id":1}`, false,
		[]envelopeWant{{kind: KindBadResponse, err: errDupMember, id: `1`}}},

	// Neither request nor response.
	{"noMethod", `{"jsonrpc":"2.0","id":3}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errNoMethod, id: `3`}}},
	{"emptyObject", `{}`, false,
		[]envelopeWant{{kind: KindInvalid, err: errNoMethod}}},
	{"emptyObjectSpaces", ` { } `, false,
		[]envelopeWant{{kind: KindInvalid, err: errNoMethod}}},
	{"notObjectNumber", `1`, false, []envelopeWant{{kind: KindInvalid, err: errNotObject}}},
	{"notObjectString", `"x"`, false, []envelopeWant{{kind: KindInvalid, err: errNotObject}}},
	{"notObjectNull", ` null `, false, []envelopeWant{{kind: KindInvalid, err: errNotObject}}},

	// Batches.
	{"batchEmpty", `[]`, false, []envelopeWant{{kind: KindInvalid, err: errEmptyBatch}}},
	{"batchEmptySpaces", " [ \n ] ", false, []envelopeWant{{kind: KindInvalid, err: errEmptyBatch}}},
	{"batchOneInvalid", `[1]`, true, []envelopeWant{{kind: KindInvalid, err: errNotObject}}},
	{"batchAllInvalid", `[1,"2",null]`, true, []envelopeWant{
		{kind: KindInvalid, err: errNotObject}, {kind: KindInvalid, err: errNotObject}, {kind: KindInvalid, err: errNotObject}}},
	{"batchNested", `[[{"jsonrpc":"2.0","method":"m","id":1}],{}]`, true, []envelopeWant{
		{kind: KindInvalid, err: errNotObject}, {kind: KindInvalid, err: errNoMethod}}},
	{"batchMixed", `[
		{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
		{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
		{"foo": "boo"},
		{"jsonrpc": "2.0", "result": 19, "id": 3},
		{"jsonrpc": "2.0", "method": "m", "id": 1, "id": 2}
	]`, true, []envelopeWant{
		{kind: KindRequest, id: `"1"`, method: `sum`, params: `[1,2,4]`},
		{kind: KindNotification, method: `notify_hello`, params: `[7]`},
		{kind: KindInvalid, err: errNoMethod},
		{kind: KindResult, id: `3`, result: `19`},
		{kind: KindInvalid, err: errDupMember, method: `m`},
	}},
}

func checkMessage(t *testing.T, got Message, want envelopeWant) {
	t.Helper()
	span := func(name string, b []byte, w string) {
		t.Helper()
		if w == "" && b != nil || string(b) != w {
			t.Errorf("%s = %q (nil %v), want %q", name, b, b == nil, w)
		}
	}
	if got.Kind != want.kind {
		t.Errorf("Kind = %v, want %v", got.Kind, want.kind)
	}
	if got.Err != want.err {
		t.Errorf("Err = %v, want %v", got.Err, want.err)
	}
	span("ID", got.ID, want.id)
	span("Method", got.Method, want.method)
	span("Params", got.Params, want.params)
	span("Result", got.Result, want.result)
	span("ErrorObj", got.ErrorObj, want.errObj)
	if got.MethodEscaped != want.escaped {
		t.Errorf("MethodEscaped = %v, want %v", got.MethodEscaped, want.escaped)
	}
}

func TestScanner_envelope(t *testing.T) {
	s := NewScanner(nil)
	for _, tt := range envelopeCases {
		t.Run(tt.name, func(t *testing.T) {
			msgs, batch, err := s.Scan([]byte(tt.in))
			if err != nil {
				t.Fatalf("Scan(%s): %v", tt.in, err)
			}
			if batch != tt.batch || len(msgs) != len(tt.want) {
				t.Fatalf("Scan(%s): %d messages, batch %v; want %d, %v", tt.in, len(msgs), batch, len(tt.want), tt.batch)
			}
			for i := range msgs {
				checkMessage(t, msgs[i], tt.want[i])
			}
		})
	}
}

func TestScanner_rejectsDuplicateID(t *testing.T) {
	s := NewScanner(nil)
	msgs, _, err := s.Scan([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","id":1}`))
	if err != nil || len(msgs) != 1 {
		t.Fatal(msgs, err)
	}
	if m := msgs[0]; m.Kind != KindInvalid || m.Err != errDupMember || m.ID != nil {
		t.Errorf("got %v %v id %q; want invalid, duplicated member, id null", m.Kind, m.Err, m.ID)
	}
}

func TestScanner_batchLimit(t *testing.T) {
	s := NewScanner(&Limits{MaxBatch: 3})
	elem := `{"jsonrpc":"2.0","method":"m","id":1}`
	for n := 1; n <= 5; n++ {
		in := "[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]"
		msgs, batch, err := s.Scan([]byte(in))
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if n <= 3 {
			if !batch || len(msgs) != n {
				t.Errorf("n=%d: batch %v, %d messages", n, batch, len(msgs))
			}
			continue
		}
		if batch || len(msgs) != 1 || msgs[0].Kind != KindInvalid || msgs[0].Err != errBatchTooLong || msgs[0].ID != nil {
			t.Errorf("n=%d: batch %v, %+v; want one batch-too-long error", n, batch, msgs)
		}
	}
	// The elements past the limit are still validated.
	bad := "[" + strings.Repeat(elem+",", 4) + `{"a":tru}]`
	if _, _, err := s.Scan([]byte(bad)); !errors.Is(err, ErrSyntax) {
		t.Errorf("over-long batch with a syntax error: %v, want ErrSyntax", err)
	}
}

func TestMessage_AppendMethod(t *testing.T) {
	s := NewScanner(nil)
	for _, tt := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","method":"tools/call","id":1}`, "tools/call"},
		{`{"jsonrpc":"2.0","method":"t\u006f\u006fls\/call","id":1}`, "tools/call"},
		{`{"jsonrpc":"2.0","method":"caf\u00e9 \ud83d\ude00","id":1}`, "café 😀"},
	} {
		msgs, _, err := s.Scan([]byte(tt.in))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(msgs[0].AppendMethod(nil)); got != tt.want {
			t.Errorf("AppendMethod(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestScanner_specExamples checks the scanner's part of the JSON-RPC 2.0
// specification's examples: a parse error, or the messages to answer (with
// their id and, for invalid ones, their code) and those to leave unanswered.
func TestScanner_specExamples(t *testing.T) {
	raw, err := os.ReadFile("../testdata/jsonrpc/spec-examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name     string
		Request  string
		Response *string
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, jsonrpc1 := range []bool{false, true} {
		s := NewScanner(nil)
		s.SetJSONRPC1(jsonrpc1) // 1.0 objects accepted or not, the 2.0 examples are exact
		for _, c := range cases {
			specExample(t, s, c.Name+"/jsonrpc1="+strconv.FormatBool(jsonrpc1), c.Request, c.Response)
		}
	}
}

func specExample(t *testing.T, s *Scanner, name, request string, response *string) {
	type answer struct {
		ID    json.RawMessage
		Error *struct{ Code Code }
	}
	c := struct {
		Request  string
		Response *string
	}{request, response}
	t.Run(name, func(t *testing.T) {
		var want []answer
		if c.Response != nil {
			r := []byte(*c.Response)
			if r[0] == '[' {
				if err := json.Unmarshal(r, &want); err != nil {
					t.Fatal(err)
				}
			} else {
				want = make([]answer, 1)
				if err := json.Unmarshal(r, &want[0]); err != nil {
					t.Fatal(err)
				}
			}
		}
		msgs, _, err := s.Scan([]byte(c.Request))
		if len(want) == 1 && want[0].Error != nil && want[0].Error.Code == CodeParseError {
			if err == nil {
				t.Fatalf("Scan(%s) = %+v, want a parse error", c.Request, msgs)
			}
			return
		}
		if err != nil {
			t.Fatalf("Scan(%s): %v", c.Request, err)
		}
		var answered []Message
		for _, m := range msgs {
			if m.Kind == KindInvalid || m.Kind == KindRequest {
				answered = append(answered, m)
			}
		}
		if len(answered) != len(want) {
			t.Fatalf("%d messages to answer, want %d", len(answered), len(want))
		}
		for i, m := range answered {
			id := string(m.ID)
			if m.ID == nil {
				id = "null"
			}
			if id != string(want[i].ID) {
				t.Errorf("answer %d: id %s, want %s", i, id, want[i].ID)
			}
			if m.Kind == KindInvalid && (want[i].Error == nil || want[i].Error.Code != m.Err.Code) {
				t.Errorf("answer %d: code %d, want %+v", i, m.Err.Code, want[i].Error)
			}
			if m.JSONRPC1 {
				t.Errorf("answer %d: taken as JSON-RPC 1.0", i)
			}
		}
	})
}

func TestMessage_Rebase_pointsIntoTheCopy(t *testing.T) {
	frame := []byte(`[{"jsonrpc":"2.0","id":"a\u00e9","method":"m\u0065","params":[1,{"x":2}]},` +
		`{"jsonrpc":"2.0","id":7,"result":{"ok":true}},{"jsonrpc":"2.0","id":8,"error":{"code":1,"message":"no"}}]`)
	// A frame inside a larger read buffer, as a framer returns it.
	buf := append(append([]byte("xx"), frame...), "yy"...)
	frame = buf[2 : 2+len(frame)]
	msgs, _, err := NewScanner(nil).Scan(frame)
	if err != nil {
		t.Fatal(err)
	}
	cp := append([]byte(nil), frame...)
	for i := range msgs {
		m := &msgs[i]
		r := m.Rebase(frame, cp)
		for _, pair := range [][2][]byte{{m.ID, r.ID}, {m.Method, r.Method}, {m.Params, r.Params}, {m.Result, r.Result}, {m.ErrorObj, r.ErrorObj}} {
			if (pair[0] == nil) != (pair[1] == nil) || !bytes.Equal(pair[0], pair[1]) {
				t.Fatalf("message %d: span %q rebased to %q", i, pair[0], pair[1])
			}
			if len(pair[1]) > 0 && (&pair[1][0] == &pair[0][0] || cap(pair[1]) != len(pair[1])) {
				t.Fatalf("message %d: span %q not moved into the copy, or not capped", i, pair[1])
			}
		}
	}
}
