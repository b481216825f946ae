// Interop tests over stdio: the official TypeScript SDK's MCP client
// (@modelcontextprotocol/sdk, pinned in package.json) starts mcpwire's
// demo server and drives it over stdin and stdout, as a desktop client
// would. The checks are in suite.mjs; http.test.mjs runs them over
// Streamable HTTP.
//
// DEMOSERVER must name the built demo server. `go test ./interop` builds it
// and runs this file with it set; by hand:
//
//	go build -o /tmp/demoserver ./cmd/demoserver
//	DEMOSERVER=/tmp/demoserver node --test interop/
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { demoServer, suite } from './suite.mjs';

const server = demoServer();

suite({
  async open(args) {
    const transport = new StdioClientTransport({ command: server, args, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (b) => { stderr += b; });
    // Closing the client closes the server's stdin, and the server exits.
    return { transport, stderr: () => stderr, close: (client) => client.close() };
  },
});
