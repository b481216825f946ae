// The official TypeScript SDK's MCP client (@modelcontextprotocol/sdk,
// pinned in the root's interop/package.json) drives sqlmcp through every
// tool, resource, the completion and the prompt, as a desktop client
// would. `go test` in examples/sqlmcp runs this file (interop_test.go)
// with:
//
//   MCP_SDK_DIR  the directory whose node_modules hold the SDK (interop/)
//   SQLMCP       the built server; SQLMCP_DSN its DSN (which it reads from
//                the environment, as a client's config would give it);
//                SQLMCP_KIND sqlite, mariadb or postgres
//   SQLMCP_URL   if set, the Streamable HTTP endpoint of a server already
//                running (else the client starts SQLMCP over stdio)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(join(process.env.MCP_SDK_DIR, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { McpError } = require('@modelcontextprotocol/sdk/types.js');

const kind = process.env.SQLMCP_KIND;
const param = (i) => (kind === 'postgres' ? `$${i}` : '?');

const transport = process.env.SQLMCP_URL
  ? new StreamableHTTPClientTransport(new URL(process.env.SQLMCP_URL))
  : new StdioClientTransport({ command: process.env.SQLMCP, args: ['-allow-write'], env: { ...process.env }, stderr: 'inherit' });
const client = new Client({ name: 'sqlmcp-interop', version: '1.0.0' });
await client.connect(transport);
after(() => client.close());

const TABLES = ['customer_totals', 'customers', 'orders', 'products'];

// call calls a tool; the SDK checks structuredContent against the
// tool's output schema.
async function call(name, args = {}) {
  return client.callTool({ name, arguments: args });
}

test('the tools, each with an input and an output schema', async () => {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['describe_table', 'list_tables', 'sql_execute', 'sql_query']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.outputSchema?.type, 'object', t.name);
  }
  assert.equal(tools.find((t) => t.name === 'sql_query').annotations.readOnlyHint, true);
});

test('list_tables and describe_table', async () => {
  const list = await call('list_tables');
  assert.deepEqual(list.structuredContent.tables.map((t) => t.name), TABLES);
  const orders = await call('describe_table', { table: 'orders' });
  assert.ok(!orders.isError);
  const info = orders.structuredContent;
  assert.deepEqual(info.primary_key, ['id']);
  assert.deepEqual(info.columns.map((c) => c.name), ['id', 'customer_id', 'product_id', 'quantity', 'status', 'ordered_at']);
  assert.deepEqual(info.foreign_keys.map((f) => `${f.columns}->${f.references_table}`).sort(), ['customer_id->customers', 'product_id->products']);
  const unknown = await call('describe_table', { table: 'nope' });
  assert.equal(unknown.isError, true);
  assert.match(unknown.content[0].text, /the available ones are: customer_totals, customers, orders, products/);
});

test('sql_query: parameters, structured rows, the text table, the cap', async () => {
  const r = await call('sql_query', { sql: `SELECT id, name FROM products WHERE id = ${param(1)}`, params: [3] });
  assert.ok(!r.isError, r.content[0].text);
  assert.deepEqual(r.structuredContent.columns, ['id', 'name']);
  assert.equal(r.structuredContent.rows.length, 1);
  assert.equal(r.structuredContent.rows[0][0], 3);
  assert.equal(r.structuredContent.truncated, false);
  assert.match(r.content[0].text, /^id \| name/);
  assert.match(r.content[0].text, /\(1 row; /);
  const capped = await call('sql_query', { sql: 'SELECT id FROM orders ORDER BY id', max_rows: 3 });
  assert.deepEqual(capped.structuredContent.rows, [[1], [2], [3]]);
  assert.equal(capped.structuredContent.truncated, true);
});

test('sql_query refuses writes; database errors are tool errors', async () => {
  const refused = await call('sql_query', { sql: 'DROP TABLE orders' });
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /^refused: DROP is not a read-only statement/);
  const bad = await call('sql_query', { sql: 'SELECT * FROM no_such_table' });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^(sqlite|mysql|postgres) error [0-9A-Z]+/);
  const list = await call('list_tables');
  assert.equal(list.structuredContent.tables.length, TABLES.length);
});

test('sql_execute writes and counts', async () => {
  const p = [1, 2, 3, 4, 5].map(param).join(', ');
  const ins = await call('sql_execute', {
    sql: `INSERT INTO customers (id, name, email, country, created_at) VALUES (${p})`,
    params: [2000, 'Katherine Johnson', 'kj@example.com', 'US', '2025-02-01'],
  });
  assert.ok(!ins.isError, ins.content[0]?.text);
  assert.equal(ins.structuredContent.rows_affected, 1);
  const seen = await call('sql_query', { sql: 'SELECT name FROM customers WHERE id = 2000' });
  assert.deepEqual(seen.structuredContent.rows, [['Katherine Johnson']]);
  const del = await call('sql_execute', { sql: 'DELETE FROM customers WHERE id = 2000' });
  assert.equal(del.structuredContent.rows_affected, 1);
});

test('resources, the template and its completion', async () => {
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri), ['schema://tables']);
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ['schema://table/{name}']);
  const all = await client.readResource({ uri: 'schema://tables' });
  assert.deepEqual(JSON.parse(all.contents[0].text).tables.map((t) => t.uri), TABLES.map((t) => `schema://table/${t}`));
  const one = await client.readResource({ uri: 'schema://table/customers' });
  assert.equal(one.contents[0].mimeType, 'application/json');
  assert.equal(JSON.parse(one.contents[0].text).name, 'customers');
  await assert.rejects(client.readResource({ uri: 'schema://table/nope' }), (e) => e instanceof McpError && e.code === -32002);
  const c = await client.complete({ ref: { type: 'ref/resource', uri: 'schema://table/{name}' }, argument: { name: 'name', value: 'cu' } });
  assert.deepEqual(c.completion.values, ['customer_totals', 'customers']);
});

test('explain_query embeds the tables it names', async () => {
  const sql = 'SELECT p.name, COUNT(*) FROM orders o JOIN products p ON p.id = o.product_id GROUP BY p.name';
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), ['explain_query']);
  const r = await client.getPrompt({ name: 'explain_query', arguments: { sql } });
  const kinds = r.messages.map((m) => m.content.type);
  assert.deepEqual(kinds, ['resource', 'resource', 'text']);
  assert.deepEqual(r.messages.slice(0, 2).map((m) => m.content.resource.uri), ['schema://table/orders', 'schema://table/products']);
  assert.ok(r.messages[2].content.text.includes(sql));
});
