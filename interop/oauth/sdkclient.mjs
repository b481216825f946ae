// The official TypeScript SDK's MCP client (@modelcontextprotocol/sdk,
// pinned in ../package.json) as a machine client of OAuth 2.1: its
// ClientCredentialsProvider (the client_credentials grant,
// client_secret_basic) behind StreamableHTTPClientTransport, against an
// MCP server that wants a bearer token. The SDK meets the 401, reads the
// server's protected resource metadata and its authorization server's
// metadata, gets a token, then lists the tools and calls add.
//
// Run by sdkclient_test.go (go test ./interop/oauth), with MCP_URL, the
// server's endpoint, ISSUER, the provider's issuer (the only authorization
// server the credentials may be sent to), CLIENT_ID and CLIENT_SECRET, the
// client's credentials there, and SCOPE, the scope to ask for: SDK
// 1.32.2's client-credentials grant asks for the provider's configured
// scope alone, not the one a challenge or the resource's metadata names. It prints one JSON object on standard
// output: the HTTP exchanges (method, URL, status, whether a bearer token
// was sent; never a header's value), the tools' names, add's result, and
// the access token, for the test to look for in the server's log. It
// exits non-zero, saying why, when a step fails.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';

const { MCP_URL, ISSUER, CLIENT_ID, CLIENT_SECRET, SCOPE } = process.env;
if (!MCP_URL || !ISSUER || !CLIENT_ID || !CLIENT_SECRET || !SCOPE) {
  console.error('MCP_URL, ISSUER, CLIENT_ID, CLIENT_SECRET and SCOPE must be set');
  process.exit(2);
}

const exchanges = [];
async function recordingFetch(input, init) {
  const url = input instanceof Request ? input.url : String(input);
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  new Headers(init?.headers).forEach((v, k) => headers.set(k, v));
  const res = await fetch(input, init);
  exchanges.push({
    method: init?.method ?? (input instanceof Request ? input.method : 'GET'),
    url,
    status: res.status,
    bearer: /^Bearer /i.test(headers.get('authorization') ?? ''),
  });
  return res;
}

const provider = new ClientCredentialsProvider({
  clientId: CLIENT_ID,
  clientSecret: CLIENT_SECRET,
  clientName: 'mcpwire interop',
  scope: SCOPE,
  expectedIssuer: ISSUER,
});
const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
  authProvider: provider,
  fetch: recordingFetch,
});
const client = new Client({ name: 'mcpwire-oauth-interop', version: '1.0.0' });

// The transport's GET stream would keep Node running after a failure:
// the script exits when it is done, and after 60s at the latest.
setTimeout(() => {
  console.error('not done within 60s');
  console.error(JSON.stringify({ exchanges }));
  process.exit(1);
}, 60_000).unref();
let code = 0;
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  console.log(JSON.stringify({
    protocolVersion: transport.protocolVersion,
    exchanges,
    tools: tools.map((t) => t.name),
    result,
    token: provider.tokens()?.access_token ?? '',
  }));
  await client.close();
} catch (err) {
  console.error(`the SDK's client failed: ${err?.stack ?? err}`);
  console.error(JSON.stringify({ exchanges }));
  code = 1;
}
process.exit(code);
