// The interop checks: the official TypeScript SDK's MCP client
// (@modelcontextprotocol/sdk, pinned in package.json) drives mcpwire's demo
// server as a desktop client would. stdio.test.mjs runs them over stdio,
// http.test.mjs over Streamable HTTP; this module holds no test of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

// demoServer returns the built demo server DEMOSERVER names.
export function demoServer() {
  const server = process.env.DEMOSERVER;
  if (!server) {
    throw new Error('DEMOSERVER must name the built demo server (go test ./interop sets it)');
  }
  return server;
}

// suite defines every test over one transport. open(args) starts a demo
// server with args and returns { transport, stderr, close }: transport,
// an SDK client transport to it, not yet started; stderr(), what the
// server logged so far; close(client), which closes the client and then
// ends the server, so that stderr() holds all it logged. http is true over
// Streamable HTTP, where a few checks differ (each says why).
export function suite({ open, http = false }) {
  const VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
  const LATEST = VERSIONS[0];
  const TIMEOUT = { timeout: 30_000 };

  // The 1x1 PNG the demo server serves (internal/demoserver/media.go).
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mP4z8AAAAMBAQD3A0FDAAAAAElFTkSuQmCC';

  // connect starts the demo server with args and connects an SDK client.
  // The client's transport is tapped: wire.in and wire.out hold every
  // message received and sent, in order, so a test can check what went over
  // the wire (the order of notifications and results, a cancellation, the
  // absence of a response). version, when set, replaces the protocol version
  // the SDK asks for in initialize (it always asks for its latest).
  async function connect(t, { args = [], capabilities = { sampling: {}, elicitation: {} }, version, setup } = {}) {
    const { transport, stderr, close } = await open(args);

    const wire = { in: [], out: [] };
    let handler;
    Object.defineProperty(transport, 'onmessage', {
      get: () => handler && ((m, extra) => { wire.in.push(m); handler(m, extra); }),
      set: (h) => { handler = h; },
    });
    const send = transport.send.bind(transport);
    transport.send = (m, opts) => {
      if (version && m.method === 'initialize') {
        m = { ...m, params: { ...m.params, protocolVersion: version } };
      }
      wire.out.push(m);
      return send(m, opts);
    };

    const client = new Client({ name: 'mcpwire-interop', version: '1.0.0' }, { capabilities });
    const errors = [];
    client.onerror = (e) => errors.push(e);
    setup?.(client);
    await client.connect(transport);
    t.after(async () => {
      const during = errors.splice(0);
      await close(client);
      assert.deepEqual(during.map(String), [], 'the SDK reported errors');
      // Over HTTP, closing the client aborts its fetches: the SDK reports
      // the abort of the GET stream it holds open as an error, and a
      // reconnection it had scheduled (to resume the POST stream of a
      // cancelled call, which the server ends unanswered) fails the same
      // way, until it gives up. Those, and only those, may come now.
      const teardown = errors.map(String).filter((e) => !(http && /This operation was aborted|Maximum reconnection attempts/.test(e)));
      assert.deepEqual(teardown, [], 'the SDK reported errors while closing');
      // A cancelled call's handler ends with "context canceled", which the
      // connection logs as a handler error although nobody is answered.
      const failures = stderr().split('\n').filter((l) => /panic|level=ERROR/.test(l) && !/context canceled/.test(l));
      assert.deepEqual(failures, [], 'the demo server logged a failure');
    });
    return { client, transport, wire, errors, stderr };
  }

  // answer returns the response to the request of this id in wire.in, and
  // its index.
  function answer(wire, id) {
    const i = wire.in.findIndex((m) => m.id === id && ('result' in m || 'error' in m));
    return { index: i, message: wire.in[i] };
  }

  // sentRequest returns the request of this method the client sent last.
  function sentRequest(wire, method) {
    return wire.out.findLast((m) => m.method === method && m.id !== undefined);
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  // eventually waits until f returns a truthy value.
  async function eventually(f, what, ms = 10_000) {
    const end = Date.now() + ms;
    for (;;) {
      const v = f();
      if (v) return v;
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
      await sleep(10);
    }
  }

  const textOf = (res) => {
    assert.equal(res.content.length, 1, JSON.stringify(res));
    assert.equal(res.content[0].type, 'text');
    return res.content[0].text;
  };

  async function rejectsWithCode(promise, code) {
    await assert.rejects(promise, (e) => {
      assert.ok(e instanceof McpError, `${e}`);
      assert.equal(e.code, code, e.message);
      return true;
    });
  }

  test('initialize negotiates each supported version', TIMEOUT, async (t) => {
    for (const v of VERSIONS) {
      await t.test(v, async (t) => {
        const { client, wire } = await connect(t, { version: v });
        const init = answer(wire, sentRequest(wire, 'initialize').id).message;
        assert.equal(init.result.protocolVersion, v);
        // 2024-11-05 has completion/complete but no completions capability.
        const completions = v === '2024-11-05' ? {} : { completions: {} };
        // 2025-11-25 has tasks (experimental), for tools/call.
        const tasks = v === '2025-11-25' ? { tasks: { cancel: {}, list: {}, requests: { tools: { call: {} } } } } : {};
        assert.deepEqual(client.getServerCapabilities(), {
          logging: {}, ...completions,
          prompts: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          tools: { listChanged: true },
          ...tasks,
        });
        assert.equal(client.getServerVersion().name, 'mcpwire-demoserver');
        assert.ok(client.getInstructions());
        assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: `hi ${v}` } })), `hi ${v}`);
      });
    }
  });

  test('initialize with an unknown version is answered with the latest', TIMEOUT, async (t) => {
    const { client, wire } = await connect(t, { version: '1999-01-01' });
    const init = answer(wire, sentRequest(wire, 'initialize').id).message;
    assert.equal(init.result.protocolVersion, LATEST);
    await client.ping();
  });

  test('tools are listed across several pages', TIMEOUT, async (t) => {
    const { client } = await connect(t, { args: ['-page-size', '3'] });
    const names = [];
    let pages = 0;
    let cursor;
    do {
      const res = await client.listTools(cursor ? { cursor } : {});
      pages++;
      assert.ok(res.tools.length <= 3, `page ${pages} holds ${res.tools.length}`);
      for (const tool of res.tools) {
        assert.ok(tool.description, `${tool.name} has no description`);
        assert.equal(tool.inputSchema.type, 'object');
        names.push(tool.name);
      }
      cursor = res.nextCursor;
    } while (cursor);
    assert.ok(pages >= 6, `${pages} pages`);
    assert.deepEqual(names, [...names].sort());
    for (const want of ['echo', 'test_simple_text', 'test_sampling', 'json_schema_2020_12_tool', 'test_reconnection']) {
      assert.ok(names.includes(want), `${want} missing from ${names}`);
    }
    await rejectsWithCode(client.listTools({ cursor: 'not-a-cursor' }), -32602);
  });

  test('json_schema_2020_12_tool keeps its input schema verbatim', TIMEOUT, async (t) => {
    const { client } = await connect(t);
    const { tools } = await client.listTools();
    const tool = tools.find((x) => x.name === 'json_schema_2020_12_tool');
    assert.deepEqual(tool.inputSchema, {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: {
        name: { type: 'string' }, address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    });
  });

  test('tool calls: content types, structured output, errors', TIMEOUT, async (t) => {
    const { client } = await connect(t);
    await client.listTools(); // the SDK then checks structured output against the output schema

    assert.equal(textOf(await client.callTool({ name: 'test_simple_text' })), 'This is a simple text response for testing.');
    let res = await client.callTool({ name: 'test_image_content', arguments: {} });
    assert.deepEqual(res.content, [{ type: 'image', data: PNG, mimeType: 'image/png' }]);
    res = await client.callTool({ name: 'test_audio_content', arguments: {} });
    assert.equal(res.content[0].type, 'audio');
    assert.equal(res.content[0].mimeType, 'audio/wav');
    assert.equal(Buffer.from(res.content[0].data, 'base64').subarray(0, 4).toString(), 'RIFF');
    res = await client.callTool({ name: 'test_embedded_resource', arguments: {} });
    assert.deepEqual(res.content, [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }]);
    res = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
    assert.deepEqual(res.content.map((c) => c.type), ['text', 'image', 'resource']);
    assert.deepEqual(JSON.parse(res.content[2].resource.text), { test: 'data', value: 123 });

    res = await client.callTool({ name: 'add', arguments: { a: 2, b: 0.5 } });
    assert.deepEqual(res.structuredContent, { sum: 2.5 });
    assert.deepEqual(JSON.parse(textOf(res)), { sum: 2.5 });

    res = await client.callTool({ name: 'test_error_handling', arguments: {} });
    assert.equal(res.isError, true);
    assert.equal(textOf(res), 'This tool intentionally returns an error for testing');

    // Invalid arguments: a tool error that names the member.
    res = await client.callTool({ name: 'add', arguments: { a: 'two', b: 1 } });
    assert.equal(res.isError, true);
    assert.match(textOf(res), /\ba\b/);
    res = await client.callTool({ name: 'echo', arguments: {} });
    assert.equal(res.isError, true);
    assert.match(textOf(res), /message/);
    res = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { nickname: 'x', email: 'e' } });
    assert.equal(res.isError, true);
    assert.match(textOf(res), /nickname/);

    await rejectsWithCode(client.callTool({ name: 'no_such_tool', arguments: {} }), -32602);
  });

  test('resources: list, read, template, not found', TIMEOUT, async (t) => {
    const { client } = await connect(t);
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ['test://static-binary', 'test://static-text', 'test://watched-resource']);
    for (const r of resources) assert.ok(r.name && r.description && r.mimeType, JSON.stringify(r));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ['test://template/{id}/data']);

    let res = await client.readResource({ uri: 'test://static-text' });
    assert.deepEqual(res.contents, [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }]);
    res = await client.readResource({ uri: 'test://static-binary' });
    assert.deepEqual(res.contents, [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }]);
    res = await client.readResource({ uri: 'test://template/123/data' });
    assert.equal(res.contents[0].uri, 'test://template/123/data');
    assert.deepEqual(JSON.parse(res.contents[0].text), { id: '123', templateTest: true, data: 'Data for ID: 123' });

    await rejectsWithCode(client.readResource({ uri: 'test://nothing-here' }), -32002);
  });

  test('resources: subscribed, updated, unsubscribed', TIMEOUT, async (t) => {
    const updates = [];
    const { client } = await connect(t, {
      args: ['-watch-interval', '50ms'],
      setup: (c) => c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates.push(n.params.uri); }),
    });
    const before = (await client.readResource({ uri: 'test://watched-resource' })).contents[0].text;
    await sleep(150);
    assert.equal(updates.length, 0, 'updates before subscribing');
    assert.deepEqual(await client.subscribeResource({ uri: 'test://watched-resource' }), {});
    await eventually(() => updates.length >= 2, 'two resources/updated');
    assert.ok(updates.every((u) => u === 'test://watched-resource'), updates.join());
    const after = (await client.readResource({ uri: 'test://watched-resource' })).contents[0].text;
    assert.notEqual(after, before);
    assert.deepEqual(await client.unsubscribeResource({ uri: 'test://watched-resource' }), {});
    await sleep(150); // one already on its way may still arrive
    const n = updates.length;
    await sleep(300);
    assert.equal(updates.length, n, 'updates after unsubscribing');
  });

  test('prompts, a missing argument, completion', TIMEOUT, async (t) => {
    const { client } = await connect(t);
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['test_input_required_result_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image', 'test_simple_prompt']);
    for (const p of prompts) assert.ok(p.description, p.name);

    let res = await client.getPrompt({ name: 'test_simple_prompt' });
    assert.deepEqual(res.messages, [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }]);
    res = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'hello', arg2: 'world' } });
    assert.equal(res.messages[0].content.text, "Prompt with arguments: arg1='hello', arg2='world'");
    res = await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } });
    assert.deepEqual(res.messages.map((m) => m.content.type), ['resource', 'text']);
    assert.equal(res.messages[0].content.resource.uri, 'test://example-resource');
    res = await client.getPrompt({ name: 'test_prompt_with_image' });
    assert.deepEqual(res.messages[0].content, { type: 'image', data: PNG, mimeType: 'image/png' });

    await assert.rejects(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } }), (e) => {
      assert.equal(e.code, -32602);
      assert.match(e.message, /arg2/);
      return true;
    });
    await rejectsWithCode(client.getPrompt({ name: 'no_such_prompt' }), -32602);

    let c = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
    assert.deepEqual(c.completion.values, ['paris', 'park', 'party']);
    c = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } });
    assert.ok(c.completion.values.length > 0);
    c = await client.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '12' } });
    assert.deepEqual(c.completion.values, ['123']);
  });

  test('logging: level and messages, sent before the result', TIMEOUT, async (t) => {
    const logs = [];
    const { client, wire } = await connect(t, {
      setup: (c) => c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); }),
    });
    await client.setLoggingLevel('debug');
    const res = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    assert.ok(!res.isError);
    assert.deepEqual(logs.map((l) => [l.level, l.data]), [
      ['info', 'Tool execution started'], ['info', 'Tool processing data'], ['info', 'Tool execution completed'],
    ]);
    const reply = answer(wire, sentRequest(wire, 'tools/call').id);
    const noted = wire.in.map((m, i) => (m.method === 'notifications/message' ? i : -1)).filter((i) => i >= 0);
    assert.equal(noted.length, 3);
    assert.ok(noted.every((i) => i < reply.index), 'a log message came after the result');

    await client.setLoggingLevel('error');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await sleep(50);
    assert.equal(logs.length, 3, 'info messages sent at level error');
    await rejectsWithCode(client.setLoggingLevel('loud'), -32602);
  });

  test('progress: 0, 50, 100 of 100 before the result', TIMEOUT, async (t) => {
    const { client, wire } = await connect(t);
    const seen = [];
    const res = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
      onprogress: (p) => seen.push([p.progress, p.total]),
    });
    assert.ok(!res.isError);
    assert.deepEqual(seen, [[0, 100], [50, 100], [100, 100]]);
    const call = sentRequest(wire, 'tools/call');
    const token = call.params._meta.progressToken;
    const notes = wire.in.map((m, i) => [m, i]).filter(([m]) => m.method === 'notifications/progress');
    assert.ok(notes.every(([m]) => m.params.progressToken === token));
    assert.ok(notes.every(([, i]) => i < answer(wire, call.id).index), 'progress after the result');
  });

  test('a cancelled call gets no response', TIMEOUT, async (t) => {
    const { client, wire } = await connect(t);
    const ac = new AbortController();
    const call = client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
      signal: ac.signal,
      onprogress: () => ac.abort('the test cancels it'),
    });
    await assert.rejects(call);
    const req = sentRequest(wire, 'tools/call');
    const cancel = wire.out.find((m) => m.method === 'notifications/cancelled');
    assert.equal(cancel?.params.requestId, req.id);
    // The session goes on, and the cancelled call is never answered.
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'after' } })), 'after');
    await sleep(300);
    assert.equal(answer(wire, req.id).index, -1, 'the server answered a cancelled request');
  });

  test('cancelling a call cancels the sampling request it is waiting on', TIMEOUT, async (t) => {
    let samplingAborted;
    const aborted = new Promise((r) => { samplingAborted = r; });
    let samplingStarted;
    const started = new Promise((r) => { samplingStarted = r; });
    const { client, wire } = await connect(t, {
      setup: (c) => c.setRequestHandler(CreateMessageRequestSchema, (_req, extra) => new Promise((_, reject) => {
        samplingStarted();
        extra.signal.addEventListener('abort', () => { samplingAborted(); reject(new Error('aborted')); });
      })),
    });
    const ac = new AbortController();
    const call = client.callTool({ name: 'test_sampling', arguments: { prompt: 'never answered' } }, undefined, { signal: ac.signal });
    await started;
    ac.abort('the test cancels it');
    await assert.rejects(call);
    await aborted; // the server sent notifications/cancelled for its sampling request
    const sampling = wire.in.find((m) => m.method === 'sampling/createMessage');
    assert.ok(wire.in.some((m) => m.method === 'notifications/cancelled' && m.params.requestId === sampling.id));
    await sleep(200);
    assert.equal(answer(wire, sentRequest(wire, 'tools/call').id).index, -1, 'the server answered a cancelled request');
  });

  test('sampling and elicitation are answered by the client', TIMEOUT, async (t) => {
    const asked = [];
    const { client } = await connect(t, {
      capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true } } },
      setup: (c) => {
        c.setRequestHandler(CreateMessageRequestSchema, (req) => {
          asked.push(req.params);
          return { role: 'assistant', content: { type: 'text', text: 'Hello from the model' }, model: 'test-model', stopReason: 'endTurn' };
        });
        c.setRequestHandler(ElicitRequestSchema, (req) => {
          asked.push(req.params);
          const props = Object.keys(req.params.requestedSchema.properties);
          if (props.includes('username')) return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
          if (props.includes('untitledSingle')) {
            return { action: 'accept', content: { untitledSingle: 'option1', titledSingle: 'value1', legacyEnum: 'opt1', untitledMulti: ['option1', 'option2'], titledMulti: ['value1', 'value2'] } };
          }
          return { action: 'accept', content: { name: 'Jane Smith' } }; // the SDK fills in the other defaults
        });
      },
    });
    let res = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Say hello' } });
    assert.equal(textOf(res), 'LLM response: Hello from the model');
    assert.equal(asked[0].maxTokens, 100);
    assert.deepEqual(asked[0].messages, [{ role: 'user', content: { type: 'text', text: 'Say hello' } }]);

    res = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    assert.equal(textOf(res), 'User response: action=accept, content={"email":"ada@example.com","username":"ada"}');
    assert.equal(asked[1].message, 'Who are you?');
    assert.deepEqual(asked[1].requestedSchema.required, ['username', 'email']);

    res = await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    assert.equal(textOf(res), 'Elicitation completed: action=accept, content={"age":30,"name":"Jane Smith","score":95.5,"status":"active","verified":true}');
    const d = asked[2].requestedSchema.properties;
    assert.deepEqual([d.name.default, d.age.type, d.age.default, d.score.default, d.status.default, d.verified.default], ['John Doe', 'integer', 30, 95.5, 'active', true]);

    res = await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
    assert.match(textOf(res), /^Elicitation completed: action=accept, content=\{.*"titledMulti":\["value1","value2"\]/);
    const e = asked[3].requestedSchema.properties;
    assert.deepEqual(e.untitledSingle.enum, ['option1', 'option2', 'option3']);
    assert.ok(e.titledSingle.oneOf.every((o) => typeof o.const === 'string' && typeof o.title === 'string'));
    assert.equal(e.legacyEnum.enumNames.length, 3);
    assert.equal(e.untitledMulti.type, 'array');
    assert.ok(e.titledMulti.items.anyOf.length === 3);
  });

  test('sampling and elicitation without the capability are tool errors', TIMEOUT, async (t) => {
    const { client } = await connect(t, { capabilities: {} });
    for (const [name, args] of [['test_sampling', { prompt: 'x' }], ['test_elicitation', { message: 'x' }]]) {
      const res = await client.callTool({ name, arguments: args });
      assert.equal(res.isError, true, name);
      assert.match(textOf(res), /does not support/);
    }
  });

  test('URL mode elicitation: the client opens a URL and hears when it has completed', TIMEOUT, async (t) => {
    const asked = [];
    const completed = [];
    let heard = () => {};
    const { client } = await connect(t, {
      capabilities: { elicitation: { url: {} } },
      setup: (c) => {
        c.setRequestHandler(ElicitRequestSchema, (req) => {
          asked.push(req.params);
          return { action: 'accept' };
        });
        c.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
          completed.push(n.params.elicitationId);
          heard();
        });
      },
    });
    let res = await client.callTool({ name: 'test_elicitation_url', arguments: {} });
    const id = asked[0].elicitationId;
    assert.equal(asked[0].mode, 'url');
    assert.equal(asked[0].url, `http://127.0.0.1:9/authorize?id=${id}`);
    assert.equal(textOf(res), `URL elicitation ${id}: action=accept`);
    assert.deepEqual(completed, [id], 'notifications/elicitation/complete comes before the result');

    // -32042 names the URL; its completion is announced a little later,
    // and the call then succeeds.
    const announced = new Promise((resolve) => { heard = () => completed.length === 2 && resolve(); });
    let required;
    await assert.rejects(client.callTool({ name: 'test_url_elicitation_required', arguments: {} }), (err) => {
      assert.equal(err.code, -32042);
      assert.equal(err.data.elicitations.length, 1);
      required = err.data.elicitations[0];
      assert.equal(required.mode, 'url');
      assert.equal(required.url, `http://127.0.0.1:9/authorize?id=${required.elicitationId}`);
      return true;
    });
    await announced;
    assert.equal(completed[1], required.elicitationId);
    res = await client.callTool({ name: 'test_url_elicitation_required', arguments: {} });
    assert.equal(textOf(res), 'Authorized');
  });

  test('ping in both directions', TIMEOUT, async (t) => {
    const { client, wire } = await connect(t);
    assert.deepEqual(await client.ping(), {});
    const res = await client.callTool({ name: 'ping_client', arguments: {} });
    assert.match(textOf(res), /^The client answered ping/);
    const ping = wire.in.find((m) => m.method === 'ping');
    assert.ok(ping, 'the server sent no ping');
    assert.deepEqual(wire.out.find((m) => m.id === ping.id && 'result' in m)?.result, {});
  });

  test('concurrent calls are each answered', TIMEOUT, async (t) => {
    const { client } = await connect(t);
    const calls = [];
    for (let i = 0; i < 40; i++) {
      calls.push(client.callTool({ name: 'echo', arguments: { message: `m${i}` } }).then((r) => assert.equal(textOf(r), `m${i}`)));
      if (i % 8 === 0) {
        calls.push(client.callTool({ name: 'test_tool_with_progress', arguments: {} }).then((r) => assert.equal(textOf(r), 'Progress test completed.')));
        calls.push(client.callTool({ name: 'add', arguments: { a: i, b: 1 } }).then((r) => assert.deepEqual(r.structuredContent, { sum: i + 1 })));
      }
    }
    await Promise.all(calls);
  });

  test('a tool added at run time is announced with list_changed', TIMEOUT, async (t) => {
    let changed = 0;
    const { client } = await connect(t, {
      setup: (c) => c.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; }),
    });
    assert.ok(!(await client.listTools()).tools.some((x) => x.name === 'test_dynamic_tool'));
    await client.callTool({ name: 'add_dynamic_tool', arguments: {} });
    await eventually(() => changed > 0, 'notifications/tools/list_changed');
    assert.ok((await client.listTools()).tools.some((x) => x.name === 'test_dynamic_tool'));
    assert.equal(textOf(await client.callTool({ name: 'test_dynamic_tool', arguments: {} })), 'This tool was added at run time.');
  });

  test('the JSON-RPC specification methods answer on the same stream', TIMEOUT, async (t) => {
    const { client, transport, wire, errors } = await connect(t);
    await transport.send({ jsonrpc: '2.0', id: 'spec-1', method: 'echo', params: { say: 'plain JSON-RPC' } });
    const reply = await eventually(() => answer(wire, 'spec-1').message, 'the answer to echo');
    assert.deepEqual(reply, { jsonrpc: '2.0', id: 'spec-1', result: { say: 'plain JSON-RPC' } });
    // subtract's answer, a number, is no MCP result (those are objects): the
    // SDK refuses it — send fails when it comes as JSON (the server's
    // answer to a POST whose handler streams nothing), onerror reports it
    // when it comes on an event stream — and the session goes on.
    let refused = false;
    await transport.send({ jsonrpc: '2.0', id: 'spec-2', method: 'subtract', params: [42, 23] }).catch(() => { refused = true; });
    await eventually(() => refused || errors.length >= 2, 'the SDK to refuse a result that is not an object');
    assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'still here' } })), 'still here');
    errors.splice(0); // the SDK reported responses to requests it did not send: expected here
  });
}
