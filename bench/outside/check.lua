-- check.lua: a wrk script that posts one JSON-RPC call per request, each
-- with a fresh id and a message of its own, and checks every answer: the
-- status is 200, the id is one of this thread's calls still unanswered,
-- and the answer carries that call's message back (no "error", no
-- "isError":true). done() prints one line that run.sh parses:
--
--   RESULT calls/s=N answered=N failures=N
--
-- failures counts wrong answers and wrk's own errors (connect, read,
-- write, timeout) and answers whose status is not 200. Arguments after wrk's "--":
--
--   rpc METHOD       JSON-RPC over HTTP POST: METHOD(["hello #ID"]),
--                    the answer's result "hello #ID"
--   rpc-array METHOD the same, the result ["hello #ID"] (params echoed)
--   mcp SESSION      Streamable HTTP tools/call of echo {message} in the
--                    session SESSION ("-" for none), protocol 2025-11-25;
--                    the answer (JSON or an event stream) has the text
--                    block "hello #ID"
--   mcp-stateless    the same call under protocol 2026-07-28: no
--                    session, the request's _meta and the headers that
--                    mirror it (MCP-Protocol-Version, Mcp-Method, Mcp-Name)

local threads = {}

function setup(thread)
   thread:set("tid", #threads)
   table.insert(threads, thread)
end

local mode, method, session
local base, seq = 0, 0
local outstanding = {}
answered, failures = 0, 0

function init(args)
   mode = args[1]
   base = tid * 1000000000
   local headers = wrk.headers -- holds Host: add to it
   headers["Content-Type"] = "application/json"
   if mode == "mcp" then
      session = args[2]
      headers["Accept"] = "application/json, text/event-stream"
      headers["Mcp-Protocol-Version"] = "2025-11-25"
      if session ~= nil and session ~= "-" then
         headers["Mcp-Session-Id"] = session
      end
   elseif mode == "mcp-stateless" then
      headers["Accept"] = "application/json, text/event-stream"
      headers["Mcp-Protocol-Version"] = "2026-07-28"
      headers["Mcp-Method"] = "tools/call"
      headers["Mcp-Name"] = "echo"
   elseif mode == "rpc" or mode == "rpc-array" then
      method = args[2]
   else
      error("check.lua: mode " .. tostring(mode) .. ": want rpc, rpc-array, mcp or mcp-stateless")
   end
end

function request()
   seq = seq + 1
   local id = string.format("%d", base + seq)
   outstanding[id] = true
   local body
   if mode == "mcp" then
      body = '{"jsonrpc":"2.0","id":' .. id .. ',"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello #' .. id .. '"}}}'
   elseif mode == "mcp-stateless" then
      body = '{"jsonrpc":"2.0","id":' .. id .. ',"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello #' .. id .. '"},' ..
         '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
   else
      body = '{"jsonrpc":"2.0","id":' .. id .. ',"method":"' .. method .. '","params":["hello #' .. id .. '"]}'
   end
   return wrk.format("POST", nil, nil, body)
end

-- want is the text the answer to call id must hold.
local function want(id)
   if mode == "mcp" or mode == "mcp-stateless" then
      return '"text":"hello #' .. id .. '"'
   elseif mode == "rpc-array" then
      return '"result":["hello #' .. id .. '"]'
   end
   return '"result":"hello #' .. id .. '"'
end

function response(status, headers, body)
   answered = answered + 1
   local id = string.match(body, '"id":(%d+)')
   if status ~= 200 or id == nil or not outstanding[id] then
      failures = failures + 1
      return
   end
   outstanding[id] = nil
   if not string.find(body, want(id), 1, true)
      or string.find(body, '"error":', 1, true)
      or string.find(body, '"isError":true', 1, true) then
      failures = failures + 1
   end
end

function done(summary, latency, requests)
   local n, bad = 0, 0
   for _, t in ipairs(threads) do
      n = n + t:get("answered")
      bad = bad + t:get("failures")
   end
   local e = summary.errors
   bad = bad + e.connect + e.read + e.write + e.timeout -- a bad status is counted above
   io.write(string.format("RESULT calls/s=%.0f answered=%d failures=%d\n",
      n / (summary.duration / 1e6), n, bad))
end
