// Interop tests over Streamable HTTP: the official TypeScript SDK's MCP
// client (@modelcontextprotocol/sdk, pinned in package.json) drives
// mcpwire's demo server at its /mcp endpoint with the SDK's
// StreamableHTTPClientTransport. The checks are those of stdio.test.mjs,
// in suite.mjs; each test starts its own demo server on a free loopback
// port and ends it.
//
// DEMOSERVER must name the built demo server. `go test ./interop` builds it
// and runs this file with it set; by hand:
//
//	go build -o /tmp/demoserver ./cmd/demoserver
//	DEMOSERVER=/tmp/demoserver node --test interop/
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { demoServer, suite } from './suite.mjs';

const server = demoServer();

// start runs the demo server on port 0 of the loopback and returns the
// process, its log so far, and the URL of its endpoint, read from its
// "listening addr=http://…" line.
async function start(args) {
  const proc = spawn(server, ['-listen', 'http://127.0.0.1:0', ...args], { stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  proc.stderr.setEncoding('utf8');
  const addr = await new Promise((resolve, reject) => {
    proc.stderr.on('data', (s) => {
      stderr += s;
      const m = /\baddr=(http:\/\/127\.0\.0\.1:[0-9]+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => reject(new Error(`the demo server exited (${code ?? signal}) before listening:\n${stderr}`)));
  });
  return { proc, stderr: () => stderr, url: new URL('/mcp', addr) };
}

// stop ends the server with SIGTERM, as an operator would, and waits for
// it: it must shut down cleanly (exit 0) within its grace period.
async function stop(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) {
    assert.fail(`the demo server had already exited (${proc.exitCode ?? proc.signalCode})`);
  }
  const exited = once(proc, 'exit');
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  const [code, signal] = await exited;
  clearTimeout(timer);
  assert.equal(code, 0, `the demo server ended with ${code ?? signal} on SIGTERM`);
}

suite({
  http: true,
  async open(args) {
    const { proc, stderr, url } = await start(args);
    const transport = new StreamableHTTPClientTransport(url);
    return {
      transport,
      stderr,
      async close(client) {
        try {
          // DELETE ends the session, as a client leaving should; the SDK
          // throws unless the server answers 2xx or 405.
          if (transport.sessionId) await transport.terminateSession();
          await client.close();
        } finally {
          await stop(proc);
        }
      },
    };
  },
});
