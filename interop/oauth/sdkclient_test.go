package oauthinterop_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/nodetest"
	"github.com/mcpwire/mcpwire/internal/testproc"
)

// demoBin is the demo server, built for these tests.
var demoBin = testproc.NewBinary("github.com/mcpwire/mcpwire/cmd/demoserver")

// exchange is an HTTP request sdkclient.mjs's client made, as it reports
// it.
type exchange struct {
	Method, URL string
	Status      int
	Bearer      bool // an Authorization: Bearer header was sent
}

// The TypeScript SDK's client (1.32.2, the 2025-11-25 era), with its
// ClientCredentialsProvider, completes MCP's authorization flow against
// the demo server (-oauth-issuer naming the real provider, add needing a
// scope): its first request gets 401, it reads the protected resource
// metadata the challenge names and the provider's metadata, gets a token
// at the provider's token endpoint, and then lists the tools and calls
// add with it. Neither the token nor the client's secret reaches the demo
// server's log, at -v.
func TestTypeScriptSDK_clientCredentialsAgainstTheDemoServer(t *testing.T) {
	node := nodetest.Node(t, "..")
	p, issuer, _ := startProvider(t, "")
	demo := testproc.Start(t, demoBin.Path(t), []string{
		"-listen", "http://127.0.0.1:0", "-oauth-issuer", issuer, "-oauth-scopes", "add:demo.write", "-v",
	}, "addr")
	endpoint := demo.Value("addr") + "/mcp"
	p.SetResource(endpoint)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "sdkclient.mjs")
	cmd.Env = append(os.Environ(), "MCP_URL="+endpoint, "ISSUER="+issuer,
		"CLIENT_ID="+jwtApp, "CLIENT_SECRET="+appSecret, "SCOPE=demo.write")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sdkclient.mjs: %v\n%s", err, stderr.String())
	}
	var got struct {
		ProtocolVersion string
		Exchanges       []exchange
		Tools           []string
		Result          struct {
			IsError           bool
			StructuredContent struct{ Sum float64 }
		}
		Token string
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Token == "" {
		t.Fatalf("sdkclient.mjs printed no report with a token (%v):\n%s", err, stderr.String())
	}
	t.Logf("protocol version %s, exchanges %+v", got.ProtocolVersion, got.Exchanges)

	// The flow: 401 without a token, the metadata of the resource and of
	// the provider, a token from the provider, then /mcp with the token.
	metadata := demo.Value("addr") + "/.well-known/oauth-protected-resource/mcp"
	steps := []struct {
		what string
		ok   func(e exchange) bool
	}{
		{"POST /mcp without a token: 401", func(e exchange) bool {
			return e.Method == "POST" && e.URL == endpoint && !e.Bearer && e.Status == 401
		}},
		{"GET the protected resource metadata: 200", func(e exchange) bool {
			return e.Method == "GET" && e.URL == metadata && e.Status == 200
		}},
		{"GET the provider's metadata: 200", func(e exchange) bool {
			return e.Method == "GET" && strings.HasPrefix(e.URL, issuer+"/.well-known/") && e.Status == 200
		}},
		{"POST the provider's token endpoint: 200", func(e exchange) bool {
			u, err := url.Parse(e.URL)
			return err == nil && e.Method == "POST" && strings.HasPrefix(e.URL, issuer+"/") && u.Path != "" &&
				!strings.HasPrefix(u.Path, "/.well-known/") && e.Status == 200
		}},
		{"POST /mcp with the token: 200", func(e exchange) bool {
			return e.Method == "POST" && e.URL == endpoint && e.Bearer && e.Status == 200
		}},
	}
	i := 0
	for _, e := range got.Exchanges {
		if i < len(steps) && steps[i].ok(e) {
			i++
		}
	}
	if i < len(steps) {
		t.Errorf("the flow lacks the step %q (in order); the exchanges: %+v", steps[i].what, got.Exchanges)
	}
	for _, e := range got.Exchanges {
		if e.URL == endpoint && e.Bearer && e.Status >= 400 {
			t.Errorf("the token was refused: %+v", e)
		}
	}
	if !slices.Contains(got.Tools, "add") || got.Result.IsError || got.Result.StructuredContent.Sum != 5 {
		t.Errorf("tools %v, add(2, 3) = %+v; want add listed and its sum 5", got.Tools, got.Result)
	}

	if err := demo.Stop(syscall.SIGTERM); err != nil {
		t.Errorf("the demo server on SIGTERM: %v", err)
	}
	log := demo.String()
	if !strings.Contains(log, "oauth: request refused") {
		t.Errorf("the 401 was not logged:\n%s", log)
	}
	parts := strings.Split(got.Token, ".") // a JWT: its claims and signature are the token's own
	if len(parts) != 3 {
		t.Fatalf("the provider issued a token of %d parts, want a JWT's 3", len(parts))
	}
	for what, secret := range map[string]string{"the token's claims": parts[1], "the token's signature": parts[2], "the client's secret": appSecret} {
		if strings.Contains(log, secret) {
			t.Errorf("the demo server's log holds %s", what)
		}
	}
}
