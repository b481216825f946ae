package redisstore

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Fetch: one script looks the key up and, on a miss, takes the key's
// lock (one round trip); the instance that gets it runs the fill and
// stores its result with another script that checks it still holds the
// lock under the same generations, releases the lock and publishes a
// wake-up (one round trip). The others wait for the wake-up, or poll
// (the bus delivers at most once), and look again.

// genCheck starts the scripts that take the generations the caller saw
// (ARGV[1], ARGV[2]) and the keys of the current ones (KEYS[1], KEYS[2]):
// when they differ, the script answers {"g", all, method}.
const genCheck = `
local ga = redis.call('GET', KEYS[1]) or '0'
local gm = redis.call('GET', KEYS[2]) or '0'
if ga ~= ARGV[1] or gm ~= ARGV[2] then return {'g', ga, gm} end
`

// lookupScript: KEYS entry (3) and lock (4); ARGV token (3) and the
// lock's time to live in ms (4). Answers {"h", value, pttl}, {"l"} (the
// caller holds the lock) or {"w"} (another does).
var lookupScript = redis.NewScript(genCheck + `
local v = redis.call('GET', KEYS[3])
if v then return {'h', v, redis.call('PTTL', KEYS[3])} end
if redis.call('SET', KEYS[4], ARGV[3], 'NX', 'PX', ARGV[4]) then return {'l'} end
return {'w'}
`)

// releaseScript: KEYS entry (3) and lock (4); ARGV token (3), the value
// (4) and its time to live in ms (5; "0": not stored), the channel (6)
// and the wake-up (7). Stores the value only if the caller still holds
// the lock under the same generations; answers 1 if it stored it.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[4]) ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[4])
local stored = 0
if ARGV[5] ~= '0' and (redis.call('GET', KEYS[1]) or '0') == ARGV[1] and (redis.call('GET', KEYS[2]) or '0') == ARGV[2] then
  redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[5])
  stored = 1
end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return stored
`)

// renewScript: KEYS lock; ARGV token, time to live in ms.
var renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// A stored value is a flag and the encoded result: flagLive, the result
// lives until evicted in a local cache (Redis keeps it MaxTTL); flagTTL,
// it expires with the key.
const (
	flagLive = 'n'
	flagTTL  = 't'
)

// Wake-ups: 'w', an outcome, and the key's hash.
const (
	wakeStored  = '1' // the result is stored: look again
	wakeNoStore = '0' // the result is not for keeping: run your own fill
	wakeRetry   = 'r' // the fill failed on its holder's end: look again
)

// Bounds of the wait between two looks while another instance fills.
const (
	minPoll      = 20 * time.Millisecond
	maxPoll      = 250 * time.Millisecond
	maxGenRounds = 3 // looks that find newer generations, before filling here

	unkeptFor = 10 * time.Second // how long a key whose result was not for keeping skips Redis
	maxUnkept = 4096             // keys remembered so; past it, forgotten all at once
)

// waiter is a call waiting for another instance's fill of a key.
type waiter struct{ ch chan byte }

// Fetch implements cache.Tier: the result stored in Redis with what
// remains of its time to live, or the one fill returns, run by one
// instance at a time per key (the holder of the key's lock) and stored
// for the time to live fill gives (cut to MaxTTL; a result that lives
// until evicted is kept MaxTTL in Redis). A call that finds another
// instance filling waits for its wake-up, polling meanwhile, at most
// until ctx ends (then it returns ctx's error) or MaxWait, after which
// it runs its own fill. An error, or a result fill marks not to be
// stored, is not shared across instances: the waiting ones run their
// own fills; and for unkeptFor after a fill here gave a result not for
// keeping, its key skips Redis on this instance (its next fill runs at
// once). Redis unreachable: fill runs here, its outcome returned.
func (t *CacheTier) Fetch(ctx context.Context, method string, params []byte, fill func() ([]byte, time.Duration, error)) ([]byte, time.Duration, error) {
	if !t.usable() {
		return fill()
	}
	h := cacheHash(method, params)
	if t.unkept(h) {
		return fill()
	}
	fill = t.noting(h, fill)
	w := t.wait(h)
	defer t.unwait(h, w)
	tok := cacheToken()
	lockMS := t.o.LockTTL.Milliseconds()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	poll, until, gens := minPoll, time.Now().Add(t.o.MaxWait), 0
	for {
		all, m := t.generations(method)
		entry, lock := t.keys(all, m, h)
		keys := []string{t.genAll, t.genKey(method), entry, lock}
		bctx, cancel := t.lookupContext(ctx)
		r, err := lookupScript.Run(bctx, t.s.rdb, keys, all, m, tok, lockMS).Slice()
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, ctx.Err()
			}
			t.failed(err)
			return fill()
		}
		t.ok()
		var kind string
		if len(r) > 0 {
			kind, _ = r[0].(string)
		}
		switch kind {
		case "g":
			if len(r) == 3 {
				ga, _ := r[1].(string)
				gm, _ := r[2].(string)
				t.learn(method, ga, gm)
			}
			if gens++; gens >= maxGenRounds {
				return fill()
			}
			continue
		case "h":
			if res, ttl, ok := decodeHit(r); ok {
				return res, ttl, nil
			}
			return fill() // not ours: written by something else
		case "l":
			return t.fillLocked(ctx, keys, all, m, h, tok, fill)
		case "w":
		default:
			return fill() // an answer of no script of ours
		}
		// Another instance fills ("w"): wait for its wake-up, or poll.
		if timer == nil {
			timer = time.NewTimer(poll)
		} else {
			timer.Reset(poll)
		}
		select {
		case outcome := <-w.ch:
			if outcome == wakeNoStore {
				return fill()
			}
		case <-timer.C:
			poll = min(2*poll, maxPoll)
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
		if time.Now().After(until) {
			return fill()
		}
	}
}

// unkept reports whether the key's last fill here gave a result not for
// keeping, less than unkeptFor ago: its next fill runs here at once, with
// no round trip (an MCP result that is private, say, is never stored).
func (t *CacheTier) unkept(h string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	until, ok := t.unkeptKeys[h]
	if ok && time.Now().UnixNano() >= until {
		delete(t.unkeptKeys, h)
		ok = false
	}
	return ok
}

// noting returns fill, recording the key as unkept when fill's result is
// not for keeping. Errors are not recorded: the next call may succeed.
func (t *CacheTier) noting(h string, fill func() ([]byte, time.Duration, error)) func() ([]byte, time.Duration, error) {
	return func() ([]byte, time.Duration, error) {
		res, ttl, err := fill()
		if err == nil && ttl < 0 {
			t.mu.Lock()
			if len(t.unkeptKeys) >= maxUnkept {
				clear(t.unkeptKeys)
			}
			t.unkeptKeys[h] = time.Now().Add(unkeptFor).UnixNano()
			t.mu.Unlock()
		}
		return res, ttl, err
	}
}

// lookupContext bounds a look-up by the store's timeout and by half of
// the time ctx has left, so that a Redis that does not answer leaves the
// call the other half to run its fill here.
func (t *CacheTier) lookupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		if half := time.Until(d) / 2; half < t.s.timeout {
			return context.WithTimeout(ctx, half)
		}
	}
	return t.s.bound(ctx)
}

// decodeHit reads a lookup's {"h", value, pttl}.
func decodeHit(r []any) ([]byte, time.Duration, bool) {
	if len(r) != 3 {
		return nil, 0, false
	}
	v, _ := r[1].(string)
	pttl, _ := r[2].(int64)
	if len(v) == 0 {
		return nil, 0, false
	}
	res := []byte(v[1:])
	switch {
	case v[0] == flagLive:
		return res, 0, true
	case v[0] == flagTTL && pttl > 0:
		return res, time.Duration(pttl) * time.Millisecond, true
	case v[0] == flagTTL:
		return res, -1, true // expiring now: answered, not kept
	}
	return nil, 0, false
}

// fillLocked runs fill holding the key's lock, renewed while it runs,
// then stores its result if it may and releases the lock, waking the
// instances that wait. If fill panics, the lock is released and the
// panic goes on.
func (t *CacheTier) fillLocked(ctx context.Context, keys []string, all, m, h, tok string, fill func() ([]byte, time.Duration, error)) ([]byte, time.Duration, error) {
	stop := t.renew(ctx, keys[3], tok)
	done := false
	defer func() {
		if !done {
			stop()
			t.release(ctx, keys, all, m, h, tok, nil, -1, wakeRetry)
		}
	}()
	res, ttl, err := fill()
	done = true
	stop()
	outcome := byte(wakeStored)
	switch {
	case err != nil && ctx.Err() != nil:
		outcome = wakeRetry
	case err != nil || ttl < 0:
		outcome = wakeNoStore
	}
	t.release(ctx, keys, all, m, h, tok, res, ttl, outcome)
	return res, ttl, err
}

// release stores res for ttl (if outcome is wakeStored) and releases the
// lock, whether or not ctx has ended.
func (t *CacheTier) release(ctx context.Context, keys []string, all, m, h, tok string, res []byte, ttl time.Duration, outcome byte) {
	var value []byte
	ms := "0"
	if outcome == wakeStored {
		flag := byte(flagTTL)
		if ttl == 0 {
			flag, ttl = flagLive, t.o.MaxTTL
		}
		ttl = min(ttl, t.o.MaxTTL)
		if ttl >= time.Millisecond { // rounded down: never longer than the result says
			ms = strconv.FormatInt(ttl.Milliseconds(), 10)
			value = append(append(make([]byte, 0, 1+len(res)), flag), res...)
		}
	}
	if ms == "0" && outcome == wakeStored {
		outcome = wakeNoStore
	}
	bctx, cancel := t.s.bound(context.WithoutCancel(ctx))
	defer cancel()
	err := releaseScript.Run(bctx, t.s.rdb, keys, all, m, tok, value, ms,
		t.channel, string([]byte{'w', outcome})+h).Err()
	if err != nil {
		t.failed(err)
		return
	}
	t.ok()
}

// renew extends the lock every third of LockTTL while fill runs and ctx
// is live; the function it returns stops it and waits for a renewal
// under way.
func (t *CacheTier) renew(ctx context.Context, lock, tok string) (stop func()) {
	every := t.o.LockTTL / 3
	ms := t.o.LockTTL.Milliseconds()
	var (
		mu      sync.Mutex
		stopped bool
		running sync.WaitGroup
		timer   *time.Timer
	)
	mu.Lock()
	timer = time.AfterFunc(every, func() {
		mu.Lock()
		if stopped || ctx.Err() != nil {
			mu.Unlock()
			return
		}
		running.Add(1)
		mu.Unlock()
		defer running.Done()
		bctx, cancel := t.s.bound(ctx)
		held, err := renewScript.Run(bctx, t.s.rdb, []string{lock}, tok, ms).Int()
		cancel()
		if err != nil || held != 1 {
			return // lost: another instance may fill too, which is only work
		}
		mu.Lock()
		if !stopped {
			timer.Reset(every)
		}
		mu.Unlock()
	})
	mu.Unlock()
	return func() {
		mu.Lock()
		stopped = true
		timer.Stop()
		mu.Unlock()
		running.Wait()
	}
}

// wait registers a waiter for the key's wake-ups.
func (t *CacheTier) wait(h string) *waiter {
	w := &waiter{ch: make(chan byte, 1)}
	t.mu.Lock()
	ws := t.waiters[h]
	if ws == nil {
		ws = map[*waiter]struct{}{}
		t.waiters[h] = ws
	}
	ws[w] = struct{}{}
	t.mu.Unlock()
	return w
}

func (t *CacheTier) unwait(h string, w *waiter) {
	t.mu.Lock()
	if ws := t.waiters[h]; ws != nil {
		delete(ws, w)
		if len(ws) == 0 {
			delete(t.waiters, h)
		}
	}
	t.mu.Unlock()
}

// wake tells the waiters of a key (every key when h is empty) the
// outcome of a fill; a waiter keeps the first one it has not read.
func (t *CacheTier) wake(h string, outcome byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	send := func(ws map[*waiter]struct{}) {
		for w := range ws {
			select {
			case w.ch <- outcome:
			default:
			}
		}
	}
	if h != "" {
		send(t.waiters[h])
		return
	}
	for _, ws := range t.waiters {
		send(ws)
	}
}
