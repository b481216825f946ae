package codec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// jsonrpc1Cases are JSON-RPC 1.0 objects as a Scanner with SetJSONRPC1
// classifies them (each one a message alone in its frame).
var jsonrpc1Cases = []struct {
	name string
	in   string
	want envelopeWant
}{
	{"request", `{"method":"getblockcount","params":[],"id":1}`,
		envelopeWant{kind: KindRequest, id: `1`, method: `getblockcount`, params: `[]`}},
	{"requestVersion1", `{"jsonrpc":"1.0","id":"curltest","method":"getblock","params":["00ab",2]}`,
		envelopeWant{kind: KindRequest, id: `"curltest"`, method: `getblock`, params: `["00ab",2]`}},
	{"requestVersionEscaped", `{"jsonrpc":"\u0031.0","id":7,"method":"m","params":[]}`,
		envelopeWant{kind: KindRequest, id: `7`, method: `m`, params: `[]`}},
	{"requestNoParams", `{"method":"uptime","id":1.50}`,
		envelopeWant{kind: KindRequest, id: `1.50`, method: `uptime`}},
	{"requestParamsNull", `{"method":"uptime","params":null,"id":"\u00e9"}`,
		envelopeWant{kind: KindRequest, id: `"\u00e9"`, method: `uptime`}},
	{"notification", `{"method":"notify","params":[1],"id":null}`,
		envelopeWant{kind: KindNotification, method: `notify`, params: `[1]`}},
	{"paramsObject", `{"method":"m","params":{"a":1},"id":1}`,
		envelopeWant{kind: KindInvalid, err: errParamsNotArray, id: `1`, method: `m`}},
	{"paramsObjectNotification", `{"method":"m","params":{"a":1},"id":null}`,
		envelopeWant{kind: KindInvalid, err: errParamsNotArray, id: `null`, method: `m`}},
	{"paramsScalar", `{"method":"m","params":"x","id":2}`,
		envelopeWant{kind: KindInvalid, err: errParamsNotArray, id: `2`, method: `m`}},
	{"noID", `{"method":"m","params":[]}`,
		envelopeWant{kind: KindInvalid, err: errNoID1, method: `m`, params: ``}},
	{"classHint", `{"method":"m","params":[{"__jsonclass__":["Date",[0]]}],"id":3}`,
		envelopeWant{kind: KindInvalid, err: errClassHint, id: `3`, method: `m`}},
	{"classHintDeep", `{"method":"m","params":[1,{"a":[{"b":{"__jsonclass__":[]}}]}],"id":3}`,
		envelopeWant{kind: KindInvalid, err: errClassHint, id: `3`, method: `m`}},
	{"classHintEscaped", `{"method":"m","params":[{"\u005f_json\u0063lass__":["x"]}],"id":3}`,
		envelopeWant{kind: KindInvalid, err: errClassHint, id: `3`, method: `m`}},
	{"classHintAsValueIsData", `{"method":"m","params":["__jsonclass__",{"x":"__jsonclass__","__jsonclass":1}],"id":3}`,
		envelopeWant{kind: KindRequest, id: `3`, method: `m`, params: `["__jsonclass__",{"x":"__jsonclass__","__jsonclass":1}]`}},
	{"methodNotString", `{"method":1,"params":[],"id":4}`,
		envelopeWant{kind: KindInvalid, err: errBadMethod, id: `4`}},
	{"idBool", `{"method":"m","params":[],"id":true}`,
		envelopeWant{kind: KindInvalid, err: errBadID, method: `m`}},
	{"duplicated", `{"method":"m","params":[],"id":1,"id":1}`,
		envelopeWant{kind: KindInvalid, err: errDupMember, method: `m`}},
	{"reserved", `{"method":"rpc.x","params":[],"id":5}`,
		envelopeWant{kind: KindInvalid, err: errReservedMethod, id: `5`, method: `rpc.x`}},
	{"noMethod", `{"params":[],"id":6}`,
		envelopeWant{kind: KindInvalid, err: errNoMethod, id: `6`}},

	// Responses.
	{"result", `{"result":19,"error":null,"id":1}`,
		envelopeWant{kind: KindResult, id: `1`, result: `19`}},
	{"resultNull", `{"result":null,"error":null,"id":1}`,
		envelopeWant{kind: KindResult, id: `1`, result: `null`}},
	{"resultAlone", `{"jsonrpc":"1.0","result":[1],"id":"a"}`,
		envelopeWant{kind: KindResult, id: `"a"`, result: `[1]`}},
	{"error", `{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":2}`,
		envelopeWant{kind: KindError, id: `2`, errObj: `{"code":-32601,"message":"Method not found"}`}},
	{"errorAlone", `{"error":{"code":-1,"message":"x"},"id":2}`,
		envelopeWant{kind: KindError, id: `2`, errObj: `{"code":-1,"message":"x"}`}},
	{"errorAndResult", `{"result":1,"error":{"code":-1,"message":"x"},"id":2}`,
		envelopeWant{kind: KindBadResponse, err: errBadResponse, id: `2`}},
	{"errorNotObject", `{"result":null,"error":"boom","id":2}`,
		envelopeWant{kind: KindBadResponse, err: errBadResponse, id: `2`}},
	{"errorNullOnly", `{"error":null,"id":2}`,
		envelopeWant{kind: KindBadResponse, err: errBadResponse, id: `2`}},
	{"responseNoID", `{"result":1,"error":null}`,
		envelopeWant{kind: KindBadResponse, err: errBadResponse}},
}

func TestScanner_jsonrpc1(t *testing.T) {
	on, off := NewScanner(nil), NewScanner(nil)
	on.SetJSONRPC1(true)
	for _, tt := range jsonrpc1Cases {
		t.Run(tt.name, func(t *testing.T) {
			msgs, batch, err := on.Scan([]byte(tt.in))
			if err != nil || batch || len(msgs) != 1 {
				t.Fatalf("Scan(%s) = %d messages, batch %v, %v", tt.in, len(msgs), batch, err)
			}
			checkMessage(t, msgs[0], tt.want)
			if !msgs[0].JSONRPC1 {
				t.Errorf("JSONRPC1 = false")
			}
			// Off, every one of them is a 2.0 object with a bad version.
			msgs, _, _ = off.Scan([]byte(tt.in))
			if m := msgs[0]; m.JSONRPC1 || m.Kind != KindInvalid && m.Kind != KindBadResponse {
				t.Errorf("option off: %v %v, JSONRPC1 %v", m.Kind, m.Err, m.JSONRPC1)
			}
		})
	}
}

// TestScanner_jsonrpc1LeavesTwoPointZeroAlone runs every 2.0 case with the
// option on: an object with "jsonrpc":"2.0" (or any version but 1.0), and
// every element of a batch, is classified exactly as with the option off.
func TestScanner_jsonrpc1LeavesTwoPointZeroAlone(t *testing.T) {
	on, off := NewScanner(nil), NewScanner(nil)
	on.SetJSONRPC1(true)
	extra := []string{
		`[{"method":"m","params":[],"id":1},{"jsonrpc":"1.0","method":"m","params":[],"id":null}]`,
		`{"jsonrpc":"1.1","method":"m","params":[],"id":1}`,
		`{"jsonrpc":1.0,"method":"m","params":[],"id":1}`,
	}
	ins := extra
	for _, tt := range envelopeCases {
		ins = append(ins, tt.in)
	}
	for _, in := range ins {
		got, gb, gerr := on.Scan([]byte(in))
		got = append([]Message(nil), got...)
		want, wb, werr := off.Scan([]byte(in))
		if (gerr == nil) != (werr == nil) || gb != wb || len(got) != len(want) {
			t.Fatalf("Scan(%s): on %d %v %v, off %d %v %v", in, len(got), gb, gerr, len(want), wb, werr)
		}
		for i := range got {
			if got[i].JSONRPC1 {
				if wb || strings.Contains(in, `"jsonrpc":"2.0"`) {
					t.Errorf("Scan(%s) message %d: a 2.0 object or batch element taken as 1.0", in, i)
				}
				continue
			}
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("Scan(%s) message %d:\non  %+v\noff %+v", in, i, got[i], want[i])
			}
		}
	}
}

func TestToJSONRPC1(t *testing.T) {
	e := &Error{Code: CodeInvalidParams, Message: "Invalid params", Data: Raw(`{"a":"\"}"}`)}
	for _, tt := range []struct {
		name, in, want string
	}{
		{"result", string(AppendResult(nil, []byte(`1`), []byte(`19`))),
			`{"id":1,"result":19,"error":null}`},
		{"resultNullID", string(AppendResult(nil, nil, []byte(`{"x":[1,2]}`))),
			`{"id":null,"result":{"x":[1,2]},"error":null}`},
		{"resultStringID", string(AppendResult(nil, []byte(`"a\"b,\"result\":"`), []byte(`"ok"`))),
			`{"id":"a\"b,\"result\":","result":"ok","error":null}`},
		{"resultDecimalID", string(AppendResult(nil, []byte(`-1.50e+3`), nil)),
			`{"id":-1.50e+3,"result":null,"error":null}`},
		{"error", string(AppendError(nil, []byte(`12345678901234567890`), ErrMethodNotFound)),
			`{"id":12345678901234567890,"result":null,"error":{"code":-32601,"message":"Method not found"}}`},
		{"errorData", string(AppendError(nil, []byte(`"\u00e9"`), e)),
			`{"id":"\u00e9","result":null,"error":{"code":-32602,"message":"Invalid params","data":{"a":"\"}"}}}`},
		{"errorNullID", string(AppendError(nil, nil, ErrParse)),
			`{"id":null,"result":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"notAResponse", `{"jsonrpc":"2.0","method":"m"}`, `{"jsonrpc":"2.0","method":"m"}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":1}]`, `[{"jsonrpc":"2.0","id":1,"result":1}]`},
		{"short", `{"jsonrpc":"2.0","id":`, `{"jsonrpc":"2.0","id":`},
		{"badID", `{"jsonrpc":"2.0","id":"x,"result":1}`, `{"jsonrpc":"2.0","id":"x,"result":1}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			buf := []byte(tt.in)
			got := ToJSONRPC1(buf)
			if string(got) != tt.want {
				t.Fatalf("ToJSONRPC1(%s)\n = %s\nwant %s", tt.in, got, tt.want)
			}
			if len(got) > 0 && &got[0] != &buf[0] {
				t.Errorf("not rewritten in place")
			}
			if tt.in != tt.want && !json.Valid(got) {
				t.Errorf("not valid JSON: %s", got)
			}
		})
	}
}

func TestAppendRequest1(t *testing.T) {
	for _, tt := range []struct {
		id             []byte
		method, params string
		want           string
	}{
		{[]byte(`1`), "getblockcount", "", `{"id":1,"method":"getblockcount","params":[]}`},
		{[]byte(`"x"`), `a"b`, `[1,"2"]`, `{"id":"x","method":"a\"b","params":[1,"2"]}`},
		{nil, "note", `[true]`, `{"id":null,"method":"note","params":[true]}`},
	} {
		var params []byte
		if tt.params != "" {
			params = []byte(tt.params)
		}
		got := string(AppendRequest1(nil, tt.id, tt.method, params))
		if got != tt.want {
			t.Errorf("AppendRequest1 = %s, want %s", got, tt.want)
		}
		// What it writes, a Scanner with the option reads back.
		s := NewScanner(nil)
		s.SetJSONRPC1(true)
		msgs, _, err := s.Scan([]byte(got))
		if err != nil || !msgs[0].JSONRPC1 || (msgs[0].Kind == KindRequest) != (tt.id != nil) {
			t.Errorf("Scan(%s) = %+v, %v", got, msgs, err)
		}
	}
}

func FuzzToJSONRPC1(f *testing.F) {
	f.Add([]byte(`1`), []byte(`{"a":1}`), int32(0), "")
	f.Add([]byte(`"\u00e9,\"error\":"`), []byte(`null`), int32(-32601), "Method \"not\" found")
	f.Add([]byte(`null`), []byte(`[]`), int32(5), "}")
	s := NewScanner(nil)
	f.Fuzz(func(t *testing.T, id, result []byte, code int32, msg string) {
		if !s.Valid(id) || !s.Valid(result) || len(id) == 0 || len(result) == 0 {
			return
		}
		if c := id[0]; c == '{' || c == '[' || c == 't' || c == 'f' || c <= ' ' || id[len(id)-1] <= ' ' {
			return // ids are strings, numbers or null, compact as the scanner keeps them
		}
		var resp []byte
		var want map[string]any
		if code == 0 {
			resp = AppendResult(nil, id, result)
			want = map[string]any{"id": raw(t, id), "result": raw(t, result), "error": nil}
		} else {
			resp = AppendError(nil, id, &Error{Code: Code(code), Message: msg})
			want = map[string]any{"id": raw(t, id), "result": nil, "error": raw(t, resp[len(head2)+len(id)+len(`,"error":`):len(resp)-1])}
		}
		got := ToJSONRPC1(resp)
		var v map[string]any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("ToJSONRPC1 = %s: %v", got, err)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("ToJSONRPC1 = %s\ndecoded %v\nwant    %v", got, v, want)
		}
		if string(got[:len(`{"id":`)+len(id)]) != `{"id":`+string(id) {
			t.Fatalf("id not echoed byte for byte: %s", got)
		}
	})
}

func raw(t *testing.T, v []byte) any {
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		t.Fatal(err)
	}
	return x
}
