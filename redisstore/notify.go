package redisstore

import (
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/mcp"
)

// notice is an mcp.Notice as the notice channel carries it.
type notice struct {
	Origin string `json:"o"`
	Method string `json:"m"`
	URI    string `json:"u,omitempty"`
}

// PublishNotice implements mcp.Broadcast: one round trip (PUBLISH on the
// notice channel). Instances whose subscription is down (Redis
// restarting) miss it: pub/sub delivers at most once.
func (s *Store) PublishNotice(ctx context.Context, n *mcp.Notice) error {
	b, err := json.Marshal(&notice{Origin: n.Origin, Method: n.Method, URI: n.URI})
	if err != nil {
		return err
	}
	return s.publish(ctx, s.channel("notice"), string(b))
}

// WatchNotices implements mcp.Broadcast, over the store's pub/sub
// connection (one SUBSCRIBE, the first time).
func (s *Store) WatchNotices(ctx context.Context, f func(n *mcp.Notice)) error {
	_, err := s.subscribe(ctx, s.channel("notice"), func(payload string) {
		var n notice
		if json.Unmarshal([]byte(payload), &n) == nil && n.Method != "" {
			f(&mcp.Notice{Origin: n.Origin, Method: n.Method, URI: n.URI})
		}
	})
	return err
}

var _ mcp.Broadcast = (*Store)(nil)
