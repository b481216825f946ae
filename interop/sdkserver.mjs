// A small MCP server written with the official TypeScript SDK's
// McpServer (@modelcontextprotocol/sdk, pinned in package.json), for
// sdkserver_test.go to drive with mcpwire's client. It serves the 2025
// era over stdio by default, or over Streamable HTTP with -listen (one
// McpServer per session, a port of the loopback picked by the system,
// logged on stderr as "addr=http://127.0.0.1:PORT"; the endpoint is
// /mcp; SIGTERM ends it, exit status 0).
//
// Tools:
//   - echo {message}: one text block holding message.
//   - add {a, b}: structuredContent {sum}, listed with an outputSchema.
//   - miscount: structuredContent {count: "3"}, listed with an
//     outputSchema whose count is a number. Its zod schema coerces, so
//     McpServer's own output check lets the string through: the result
//     does not match the outputSchema the client is given.
//   - countdown {from}: notifications/progress 1…from of total from for
//     the call's progress token, then "counted FROM".
//   - ask: elicitation/create (a required name, a color defaulting to
//     "blue"), then "ACTION CONTENT-AS-JSON".
//   - sample {prompt}: sampling/createMessage with prompt, then
//     "MODEL: TEXT".
//   - log {message}: a notifications/message at info level, logger
//     "sdkserver", data message, on the call's own stream; then "logged".
// Resources: fixture://greeting (text/plain "Hello from the TypeScript
// SDK."), and the template fixture://items/{id} (JSON text naming id; id
// completes from 1, 2, 3, 12). Prompts: review {topic} (topic completes
// from go, rust, zig).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const startingWith = (values) => (prefix) => values.filter((v) => v.startsWith(prefix ?? ''));

function newServer() {
  const mcp = new McpServer({ name: 'sdkserver', version: '1.0.0' }, { capabilities: { logging: {} } });

  mcp.registerTool('echo', { description: 'Echoes its message.', inputSchema: { message: z.string() } },
    async ({ message }) => text(message));

  mcp.registerTool('add', {
    description: 'Adds two numbers.',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  }, async ({ a, b }) => ({ ...text(JSON.stringify({ sum: a + b })), structuredContent: { sum: a + b } }));

  mcp.registerTool('miscount', {
    description: 'Counts, but gives the count as a string.',
    outputSchema: { count: z.coerce.number() },
  }, async () => ({ ...text('{"count":"3"}'), structuredContent: { count: '3' } }));

  mcp.registerTool('countdown', { description: 'Reports progress.', inputSchema: { from: z.number().int().min(1).max(10) } },
    async ({ from }, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (let i = 1; i <= from; i++) {
        if (progressToken !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: from, message: `step ${i}` } });
        }
      }
      return text(`counted ${from}`);
    });

  mcp.registerTool('ask', { description: 'Asks the user who they are.' }, async (extra) => {
    const r = await mcp.server.elicitInput({
      message: 'Who are you?',
      requestedSchema: {
        type: 'object',
        properties: { name: { type: 'string' }, color: { type: 'string', default: 'blue' } },
        required: ['name'],
      },
    }, { relatedRequestId: extra.requestId });
    return text(`${r.action} ${JSON.stringify(r.content ?? null)}`);
  });

  mcp.registerTool('sample', { description: 'Asks the client\'s model.', inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      const r = await mcp.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 50,
      }, { relatedRequestId: extra.requestId });
      return text(`${r.model}: ${r.content.type === 'text' ? r.content.text : r.content.type}`);
    });

  mcp.registerTool('log', { description: 'Logs its message.', inputSchema: { message: z.string() } },
    async ({ message }, extra) => {
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'sdkserver', data: message } });
      return text('logged');
    });

  mcp.registerResource('greeting', 'fixture://greeting', { mimeType: 'text/plain', description: 'A greeting.' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello from the TypeScript SDK.' }] }));

  mcp.registerResource('item', new ResourceTemplate('fixture://items/{id}', {
    list: undefined,
    complete: { id: startingWith(['1', '2', '3', '12']) },
  }), { mimeType: 'application/json', description: 'An item by id.' },
  async (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id }) }] }));

  mcp.registerPrompt('review', {
    description: 'Asks for a code review.',
    argsSchema: { topic: completable(z.string(), startingWith(['go', 'rust', 'zig'])) },
  }, ({ topic }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Review this ${topic} code.` } }] }));

  return mcp;
}

if (process.argv.includes('-listen')) {
  const transports = new Map(); // by session id
  const http = createServer(async (req, res) => {
    try {
      if (new URL(req.url, 'http://localhost').pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      const id = req.headers['mcp-session-id'];
      let transport = id && transports.get(id);
      let body;
      if (!transport && req.method === 'POST') {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (!id && isInitializeRequest(body)) {
          transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sid) => transports.set(sid, transport),
          });
          transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
          await newServer().connect(transport);
        }
      }
      if (!transport) {
        res.writeHead(id ? 404 : 400, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: id ? 'Session not found' : 'No session' }, id: null }));
        return;
      }
      await transport.handleRequest(req, res, body);
    } catch (err) {
      console.error('sdkserver: request failed:', err);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  http.listen(0, '127.0.0.1', () => {
    console.error(`sdkserver listening addr=http://127.0.0.1:${http.address().port}`);
  });
  process.on('SIGTERM', async () => {
    for (const t of transports.values()) await t.close();
    http.close(() => process.exit(0));
    http.closeAllConnections();
  });
} else {
  // The process ends when its input does: nothing else keeps it alive.
  await newServer().connect(new StdioServerTransport());
}
