// Package scaleout holds, in its tests only, the checks that several
// demo servers sharing one Redis behave as one service: a redis-server
// (internal/redistest), three instances of cmd/demoserver started with
// -redis and -instance a, b and c, and a round-robin reverse proxy in
// front of them (cluster_test.go, proxy_test.go). Each check goes
// through the proxy, as a client behind a load balancer would, and reads
// each instance's own metrics to see who served what.
//
// The checks run in the test command (scripts/test, with
// MCPWIRE_REDIS=required so that a missing redis-server fails them).
// docs/scale-out.md describes the deployment they stand for.
package scaleout
