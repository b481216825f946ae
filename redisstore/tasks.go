package redisstore

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/mcp"
)

// TaskStore returns an mcp.TaskStore in the store's Redis, shared by
// every instance given one on the same Redis and prefix; it is also an
// mcp.TaskSignals, so a tasks/cancel served by one instance reaches the
// tool running on another at once, and a task's end reaches a
// tasks/result waiting elsewhere. Give it to mcp.TaskOptions.Store.
//
// Each task is one string key holding its record, which expires with the
// task; a scope's (session's or principal's) ids are a sorted set that
// expires with its last task. Create, Get, List and DeleteSession are one
// round trip each, Update two (a read, then a compare-and-set retried
// when another instance changed the record meanwhile); a Signal is one
// PUBLISH, and Watch is free but for the first one, which subscribes.
//
// When Redis does not answer, each call fails within the store's timeout
// (or its context's sooner deadline): task requests are answered with an
// error, and a task that ends meanwhile keeps the record it had in Redis.
// The store works again as soon as Redis does; what Redis lost (a restart
// without persistence) is lost: such tasks are unknown.
func (s *Store) TaskStore() mcp.TaskStore {
	return &taskStore{s: s, watchers: map[string]map[*taskWatcher]struct{}{}}
}

// taskStore is Store.TaskStore's. Safe for concurrent use.
type taskStore struct {
	s *Store

	subMu      sync.Mutex // held while subscribing
	subscribed bool

	mu       sync.Mutex
	watchers map[string]map[*taskWatcher]struct{} // by signal (scopeID + id)
}

type taskWatcher struct{ f func() }

// maxCAS bounds the attempts of an Update whose record other instances
// keep changing.
const maxCAS = 16

// errContention fails an Update that lost maxCAS races in a row.
var errContention = errors.New("redisstore: a task's record changes too often to update")

// scopeID names a scope in keys and signals: a hash of fixed length, so
// that no scope's keys are a prefix of another's, whatever their names,
// and no principal's name is written into Redis.
func scopeID(scope string) string {
	h := sha256.Sum256([]byte(scope))
	return hex.EncodeToString(h[:16])
}

// taskKeys returns the key of a scope's index and the prefix of its
// tasks' keys (the task's id follows). A hash tag keeps a scope in one
// slot of a cluster, where the scripts reach its tasks.
func (t *taskStore) taskKeys(scope string) (index, task string) {
	tag := "{" + scopeID(scope) + "}"
	return t.s.key("tasks", tag), t.s.key("task", tag) + ":"
}

var createTask = redis.NewScript(`
local max = tonumber(ARGV[4])
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if redis.call('EXISTS', ARGV[5] .. id) == 0 then redis.call('ZREM', KEYS[1], id) end
  end
  if redis.call('ZCARD', KEYS[1]) >= max then return 0 end
end
local ttl = tonumber(ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ttl)
redis.call('ZADD', KEYS[1], 0, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`)

// Create implements mcp.TaskStore: the limit is checked and the task
// added in one script; ids of expired tasks are dropped from the index
// when it is full.
func (t *taskStore) Create(ctx context.Context, session, id string, data []byte, expires time.Time, limit int) error {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	index, prefix := t.taskKeys(session)
	ttl := max(time.Until(expires).Milliseconds(), 1)
	ok, err := createTask.Run(ctx, t.s.rdb, []string{index, prefix + id}, id, data, ttl, limit, prefix).Int()
	switch {
	case err != nil:
		return err
	case ok == 0:
		return mcp.ErrTaskLimit
	}
	return nil
}

// Get implements mcp.TaskStore.
func (t *taskStore) Get(ctx context.Context, session, id string) ([]byte, error) {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	_, prefix := t.taskKeys(session)
	b, err := t.s.rdb.Get(ctx, prefix+id).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, mcp.ErrTaskNotFound
	}
	return b, err
}

// casTask replaces a record whose SHA-1 is ARGV[1] with ARGV[2], keeping
// its time to live: 1, or 0 when it changed meanwhile, -1 when it is gone.
var casTask = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
if redis.sha1hex(cur) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
`)

// Update implements mcp.TaskStore: read, f, then a compare-and-set,
// again when another instance changed the record in between (up to
// maxCAS times).
func (t *taskStore) Update(ctx context.Context, session, id string, f func(old []byte) ([]byte, error)) error {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	_, prefix := t.taskKeys(session)
	key := prefix + id
	for range maxCAS {
		old, err := t.s.rdb.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			return mcp.ErrTaskNotFound
		}
		if err != nil {
			return err
		}
		sum := sha1.Sum(old)
		b, err := f(old)
		if err != nil {
			return err
		}
		n, err := casTask.Run(ctx, t.s.rdb, []string{key}, hex.EncodeToString(sum[:]), b).Int()
		switch {
		case err != nil:
			return err
		case n < 0:
			return mcp.ErrTaskNotFound
		case n > 0:
			return nil
		}
	}
	return errContention
}

// listTasks returns {more, id, record, id, record…}: up to ARGV[2] live
// tasks of the index whose ids sort after ARGV[1] (a ZRANGEBYLEX bound),
// dropping the ids of expired ones.
var listTasks = redis.NewScript(`
local n = tonumber(ARGV[2])
local res = {0}
local live = 0
local from = ARGV[1]
while true do
  local ids = redis.call('ZRANGEBYLEX', KEYS[1], from, '+', 'LIMIT', 0, 64)
  if #ids == 0 then return res end
  for _, id in ipairs(ids) do
    local v = redis.call('GET', ARGV[3] .. id)
    if not v then
      redis.call('ZREM', KEYS[1], id)
    elseif live >= n then
      res[1] = 1
      return res
    else
      live = live + 1
      res[#res + 1] = id
      res[#res + 1] = v
    end
  end
  from = '(' .. ids[#ids]
end
`)

// List implements mcp.TaskStore, in one script.
func (t *taskStore) List(ctx context.Context, session, after string, n int) ([]string, [][]byte, bool, error) {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	index, prefix := t.taskKeys(session)
	from := "-"
	if after != "" {
		from = "(" + after
	}
	res, err := listTasks.Run(ctx, t.s.rdb, []string{index}, from, n, prefix).Slice()
	if err != nil {
		return nil, nil, false, err
	}
	more, _ := res[0].(int64)
	ids := make([]string, 0, (len(res)-1)/2)
	data := make([][]byte, 0, (len(res)-1)/2)
	for i := 1; i+1 < len(res); i += 2 {
		id, _ := res[i].(string)
		v, _ := res[i+1].(string)
		ids = append(ids, id)
		data = append(data, []byte(v))
	}
	return ids, data, more == 1, nil
}

var deleteTasks = redis.NewScript(`
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do redis.call('DEL', ARGV[1] .. id) end
redis.call('DEL', KEYS[1])
return 1
`)

// DeleteSession implements mcp.TaskStore, in one script.
func (t *taskStore) DeleteSession(ctx context.Context, session string) error {
	ctx, cancel := t.s.bound(ctx)
	defer cancel()
	index, prefix := t.taskKeys(session)
	return deleteTasks.Run(ctx, t.s.rdb, []string{index}, prefix).Err()
}
