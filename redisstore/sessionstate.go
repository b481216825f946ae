package redisstore

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/mcp"
)

// SessionStateTTL is how long the state a session set after initialize
// (mcp.SessionState) is kept after it was last saved or loaded. A copy of
// the session re-created on an instance later than that starts with the
// server's defaults, as without a SessionStateStore; the copies that
// already hold the state keep it.
const SessionStateTTL = 24 * time.Hour

// Fields of a session state's hash.
const (
	stateLevel = "level"
	stateSub   = "sub:" // + the resource's URI
)

// stateNote is what the session state channel carries: whose state
// changed, and which server changed it.
type stateNote struct {
	Session string `json:"s"`
	Origin  string `json:"o"`
}

// LoadSessionState implements mcp.SessionStateStore: one round trip (the
// hash of the session's state, whose time to live it restarts).
func (s *Store) LoadSessionState(ctx context.Context, session string) (mcp.SessionState, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	key := s.key("state", session)
	var all *redis.MapStringStringCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		all = p.HGetAll(ctx, key)
		p.PExpire(ctx, key, SessionStateTTL)
		return nil
	})
	if err != nil {
		return mcp.SessionState{}, err
	}
	var st mcp.SessionState
	for f, v := range all.Val() {
		switch {
		case f == stateLevel:
			st.Level = mcp.LoggingLevel(v)
		case strings.HasPrefix(f, stateSub):
			st.Subscriptions = append(st.Subscriptions, f[len(stateSub):])
		}
	}
	return st, nil
}

// SaveSessionState implements mcp.SessionStateStore: one round trip (a
// MULTI that changes the session's hash, restarts its time to live and
// publishes the change on the session state channel).
func (s *Store) SaveSessionState(ctx context.Context, ch *mcp.SessionStateChange) error {
	note, err := json.Marshal(&stateNote{Session: ch.Session, Origin: ch.Origin})
	if err != nil {
		return err
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	key := s.key("state", ch.Session)
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		switch {
		case ch.Level != "":
			p.HSet(ctx, key, stateLevel, string(ch.Level))
		case ch.Subscribed:
			p.HSet(ctx, key, stateSub+ch.URI, "1")
		default:
			p.HDel(ctx, key, stateSub+ch.URI)
		}
		p.PExpire(ctx, key, SessionStateTTL)
		p.Publish(ctx, s.channel("state"), note)
		return nil
	})
	return err
}

// WatchSessionStates implements mcp.SessionStateStore, over the store's
// pub/sub connection (one SUBSCRIBE, the first time).
func (s *Store) WatchSessionStates(ctx context.Context, changed func(session, origin string)) error {
	_, err := s.subscribe(ctx, s.channel("state"), func(payload string) {
		var n stateNote
		if json.Unmarshal([]byte(payload), &n) == nil && n.Session != "" {
			changed(n.Session, n.Origin)
		}
	})
	return err
}

var _ mcp.SessionStateStore = (*Store)(nil)
