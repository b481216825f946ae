package valid

import (
	"encoding/base64"
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Stream returns a newline-delimited MCP session of at least size bytes,
// the same bytes on every call: the handshake, tools/list with schemas,
// tool calls and their results in several scripts, progress
// notifications, documents with escapes and long runs of prose, and
// images in base64, in the proportions of a busy stdio server.
func Stream(size int) []byte {
	r := rand.New(rand.NewPCG(10, 10))
	var b strings.Builder
	line := func(s string) { b.WriteString(s); b.WriteByte('\n') }
	line(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"roots":{"listChanged":true}},"clientInfo":{"name":"bench","version":"1.0.0"}}}`)
	line(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true}},"serverInfo":{"name":"docs","version":"2.1.0"}}}`)
	line(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	line(toolsList(1))
	for id := 2; b.Len() < size; id++ {
		sid := strconv.Itoa(id)
		switch id % 8 {
		case 0, 4:
			line(`{"jsonrpc":"2.0","id":` + sid + `,"method":"tools/call","params":{"name":"lookup","arguments":{"query":"naïve café ` + sid + `","limit":20,"exact":false,"ratio":0.75}}}`)
			line(`{"jsonrpc":"2.0","id":` + sid + `,"result":{"content":[{"type":"text","text":"Trouvé 3 résultats — 東京, Zürich, São Paulo \u2713\n\"quoted\" \\ path"}],"structuredContent":{"hits":[1,2,3],"score":-1.5e-3},"isError":false}}`)
		case 1:
			line(`{"jsonrpc":"2.0","id":` + sid + `,"method":"resources/read","params":{"uri":"file:///docs/chapter-` + sid + `.md"}}`)
			line(`{"jsonrpc":"2.0","id":` + sid + `,"result":{"contents":[{"uri":"file:///docs/chapter-` + sid + `.md","mimeType":"text/markdown","text":"` + prose(r, 4<<10+r.IntN(12<<10)) + `"}]}}`)
		case 2:
			line(`{"jsonrpc":"2.0","id":` + sid + `,"method":"tools/call","params":{"name":"plot","arguments":{"points":[[0,1],[1,2.5],[2,-0.5]],"title":"Q4 \ud83d\udcc8"}}}`)
			line(`{"jsonrpc":"2.0","id":` + sid + `,"result":{"content":[{"type":"image","mimeType":"image/png","data":"` + blob(r, 2<<10+r.IntN(6<<10)) + `"}]}}`)
		case 3, 6:
			for p := 1; p <= 3; p++ {
				line(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t` + sid + `","progress":` + strconv.Itoa(p) + `,"total":3,"message":"step ` + strconv.Itoa(p) + `"}}`)
			}
		default:
			line(`{"jsonrpc":"2.0","id":"s-` + sid + `","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Summarise: ` + prose(r, 300) + `"}}],"maxTokens":256,"modelPreferences":{"hints":[{"name":"small"}],"speedPriority":0.9}}}`)
		}
	}
	return []byte(b.String())
}

// toolsList is a tools/list result of ten tools with their schemas.
func toolsList(id int) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"tools":[`)
	for i := range 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"tool_` + strconv.Itoa(i) + `","description":"Does thing #` + strconv.Itoa(i) + ` — see \"docs\".","inputSchema":{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":100},"tags":{"type":"array","items":{"type":"string"}}},"required":["query"],"additionalProperties":false}}`)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// words are prose's vocabulary: mostly ASCII, some accents and scripts.
var words = []string{"the", "engine", "validates", "every", "frame", "in", "one", "pass", "and", "answers",
	"requests", "with", "results", "café", "naïve", "日本語", "données", "schema", "tool", "stream"}

// prose is n bytes or so of JSON string content: words, sentences, and
// now and then an escape (newline, tab, quote, backslash, \u00e9).
func prose(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[r.IntN(len(words))])
		switch r.IntN(40) {
		case 0:
			b.WriteString(`.\n\n`)
		case 1:
			b.WriteString(`\t`)
		case 2:
			b.WriteString(` \"quoted\" `)
		case 3:
			b.WriteString(` C:\\path `)
		case 4:
			b.WriteString(` \u00e9 `)
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// blob is n random bytes in base64.
func blob(r *rand.Rand, n int) string {
	raw := make([]byte, n)
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], r.Uint64())
	rand.NewChaCha8(seed).Read(raw)
	return base64.StdEncoding.EncodeToString(raw)
}
