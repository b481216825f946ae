package codec

import (
	"encoding/base64"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A synthetic but realistic MCP session for benchmarks and fuzz seeds: the
// messages a busy stdio server reads and writes, compact JSON as SDKs emit
// it. Deterministic: the same bytes on every run.

// mcpToolsList is a tools/list result with JSON Schemas (about 3 KiB).
func mcpToolsList(id int) string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"tools":[`)
	tools := []struct{ name, desc string }{
		{"get_weather", "Get the current weather for a location. Returns temperature in \u00b0C and conditions."},
		{"search_files", "Search files by glob pattern and content regex.\nReturns at most `limit` matches."},
		{"run_query", "Run a read-only SQL query against the \"analytics\" database."},
		{"translate", "Translate text between languages (e.g. English → 中文, Français → English)."},
		{"create_issue", "Create an issue in the tracker with a title, body and labels."},
		{"summarize_url", "Fetch a URL and return a summary 📄 of its main content."},
	}
	for k, t := range tools {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"` + t.name + `","title":"` + strings.ReplaceAll(t.name, "_", " ") + `","description":` + strconv.Quote(t.desc) +
			`,"inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"What to look for","minLength":1},` +
			`"limit":{"type":"integer","minimum":1,"maximum":1000,"default":50},"options":{"type":"object","properties":{` +
			`"caseSensitive":{"type":"boolean","default":false},"paths":{"type":"array","items":{"type":"string"}},` +
			`"format":{"type":"string","enum":["json","text","markdown"]}},"additionalProperties":false}},"required":["query"],` +
			`"$schema":"http://json-schema.org/draft-07/schema#"},"annotations":{"readOnlyHint":true,"openWorldHint":false}}`)
	}
	b.WriteString(`],"nextCursor":"eyJwYWdlIjoyfQ=="}}`)
	return b.String()
}

// mcpBlob returns n random bytes in base64.
func mcpBlob(r *rand.Rand, n int) string {
	raw := make([]byte, n)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// mcpLongText is documentation-like text with escapes and unicode, about n
// bytes once encoded.
func mcpLongText(n int) string {
	const para = `## Résumé\n\nThe \"mcpwire\" engine validates every frame in one pass. ` +
		`Unicode is kept as is: café, naïve, 中文文本, 日本語, emoji 😀🚀, and escaped \u00e9\u4e2d.\n` +
		`\tIndented line with a path C:\\Users\\dev\\file.txt and a URL https://example.com/a?b=c&d=e.\n\n`
	return strings.Repeat(para, n/len(para)+1)
}

func mcpSmallRequest(id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"Paris","units":"metric"}}}`
}

// mcpImage is a tools/call result holding a 48 KiB image, base64.
func mcpImage(r *rand.Rand, id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"content":[{"type":"image","mimeType":"image/png","data":"` + mcpBlob(r, 48<<10) + `"}]}}`
}

// mcpLarge is a resources/read result with long text and an image blob.
func mcpLarge(r *rand.Rand, id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"contents":[{"uri":"file:///docs/guide.md","mimeType":"text/markdown","text":"` +
		mcpLongText(32<<10) + `"},{"uri":"file:///img/chart.png","mimeType":"image/png","blob":"` + mcpBlob(r, 24<<10) + `"}]}}`
}

// mcpStream returns the messages of the session, one frame each.
func mcpStream() [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	var msgs []string
	add := func(s string) { msgs = append(msgs, s) }
	add(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"example-client","title":"Example Client","version":"1.4.2"}}}`)
	add(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{},"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true},"completions":{}},"serverInfo":{"name":"mcpwire-demo","title":"mcpwire demo server","version":"0.1.0"},"instructions":"Use the tools to query the analytics data.\nBe concise."}}`)
	add(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	add(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	add(mcpToolsList(1))
	id := 2
	for k := 0; len(msgs) < 300; k++ {
		id++
		switch k % 10 {
		case 0, 5:
			add(mcpSmallRequest(id))
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"content":[{"type":"text","text":"Il fait 21 \u00b0C à Paris, ciel dégagé ☀️. 今日は晴れです。\n\"Feels like\": 20 °C"}],"structuredContent":{"temperature":21.5,"conditions":"clear","humidity":0.41},"isError":false}}`)
		case 1:
			add(`{"jsonrpc":"2.0","id":"req-` + strconv.Itoa(id) + `","method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT name, count(*) FROM events WHERE day >= '2025-01-01' GROUP BY name","params":[1,2.5,-3e-2,true,null],"options":{"timeoutMs":30000,"tags":["a","b"],"nested":{"deep":{"deeper":[{"x":1},{"y":[2,[3,[4]]]}]}}}},"_meta":{"progressToken":"p-` + strconv.Itoa(id) + `"}}}`)
			for p := 1; p <= 4; p++ {
				add(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-` + strconv.Itoa(id) + `","progress":` + strconv.Itoa(p*25) + `,"total":100,"message":"Scanning partition ` + strconv.Itoa(p) + ` of 4"}}`)
			}
		case 2:
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"render_chart","arguments":{"series":[3,1,4,1,5,9,2,6],"title":"Q3 \u2014 revenue"}}}`)
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"content":[{"type":"image","mimeType":"image/png","data":"` + mcpBlob(r, 3<<10+r.IntN(9<<10)) + `"},{"type":"text","text":"Chart rendered."}]}}`)
		case 3:
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"resources/read","params":{"uri":"file:///docs/guide.md"}}`)
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"contents":[{"uri":"file:///docs/guide.md","mimeType":"text/markdown","text":"` + mcpLongText(2<<10+r.IntN(6<<10)) + `"}]}}`)
		case 4:
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"ping"}`)
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{}}`)
		case 6:
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"error":{"code":-32602,"message":"Unknown tool: nope","data":{"name":"nope","available":["get_weather","search_files","run_query"]}}}`)
		case 7:
			add(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":{"msg":"query done","rows":1234,"elapsedMs":12.75}}}`)
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/list","params":{"cursor":"eyJwYWdlIjoyfQ=="}}`)
			add(mcpToolsList(id))
		case 8:
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"code_review"},"argument":{"name":"language","value":"py"}}}`)
			add(`{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"result":{"completion":{"values":["python","pytorch","pyside"],"total":10,"hasMore":true}}}`)
		case 9:
			add(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + strconv.Itoa(id-1) + `,"reason":"User requested cancellation"}}`)
			add(`[{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`)
		}
	}
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = []byte(m)
	}
	return out
}
