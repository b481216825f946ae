package codec

import "testing"

// BenchmarkScanJSONRPC1 measures what accepting JSON-RPC 1.0 objects
// costs: a 2.0 request with the option off (the default) and on, which
// must not differ, and a 1.0 request with it on.
func BenchmarkScanJSONRPC1(b *testing.B) {
	for _, in := range []struct {
		name       string
		frame      string
		option, v1 bool
	}{
		{"version=2.0/option=off", mcpSmallRequest(42), false, false},
		{"version=2.0/option=on", mcpSmallRequest(42), true, false},
		{"version=1.0/option=on", `{"method":"getblockhash","params":[840000],"id":42}`, true, true},
		{"version=1.0/params=hint/option=on", `{"method":"getblock","params":["0000000000000000000320283a032748cef8227873ff4872689bf23f1cda83a5",{"jsonclass":2}],"id":42}`, true, true},
	} {
		b.Run(in.name, func(b *testing.B) {
			s := NewScanner(nil)
			s.SetJSONRPC1(in.option)
			frame := []byte(in.frame)
			b.ReportAllocs()
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				msgs, _, err := s.Scan(frame)
				if err != nil || msgs[0].Kind != KindRequest || msgs[0].JSONRPC1 != in.v1 {
					b.Fatalf("Scan: %v %+v", err, msgs)
				}
			}
		})
	}
}

// BenchmarkToJSONRPC1 measures the rewrite of a response into the 1.0
// shape, done for 1.0 requests only.
func BenchmarkToJSONRPC1(b *testing.B) {
	for _, in := range []struct{ name, resp string }{
		{"kind=result", string(AppendResult(nil, []byte(`42`), []byte(`"0000000000000000000320283a032748cef8227873ff4872689bf23f1cda83a5"`)))},
		{"kind=error", string(AppendError(nil, []byte(`"req-42"`), ErrMethodNotFound))},
	} {
		b.Run(in.name, func(b *testing.B) {
			buf := make([]byte, 0, len(in.resp))
			b.ReportAllocs()
			b.SetBytes(int64(len(in.resp)))
			for b.Loop() {
				if out := ToJSONRPC1(append(buf[:0], in.resp...)); out[1] != '"' || out[2] != 'i' {
					b.Fatalf("ToJSONRPC1 = %s", out)
				}
			}
		})
	}
}
