package demoserver

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcpwire/mcpwire/metrics"
	"github.com/mcpwire/mcpwire/transport"
)

// metricsServer serves Prometheus /metrics for -metrics ADDR: what every
// session reports (its Collector is each session's conn.Options.Metrics),
// read when scraped, the engine's pool, admission limit and cache, and the
// standard Go and process metrics (metrics.RegisterRuntime).
type metricsServer struct {
	col    *metrics.Collector
	hs     *http.Server
	served chan error
	log    *slog.Logger
}

// serveMetrics starts serving /metrics on addr (HOST:PORT; port 0 picks
// one), naming the instance in mcpwire_instance_info, and with -redis
// (redisUp not nil) whether Redis answers in mcpwire_redis_up. It logs the URL it serves ("metrics=http://HOST:PORT/metrics"),
// so that a script asking for port 0 can find it.
func serveMetrics(addr, instance string, redisUp func() bool, e *engine, log *slog.Logger) (*metricsServer, error) {
	reg := prometheus.NewRegistry()
	col, err := metrics.New(reg, nil)
	if err != nil {
		return nil, err
	}
	err = errors.Join(
		metrics.RegisterRuntime(reg),
		col.WatchQueue(e.pool),
		col.WatchWorkers(e.pool),
		col.WatchLimit(e.limit, e.inUse),
		col.WatchCache(e.cache),
		registerInstance(reg, instance),
	)
	if err == nil && redisUp != nil {
		err = reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mcpwire_redis_up",
			Help: "1 if the Redis of -redis answered PING when scraped (within a second), 0 if not.",
		}, func() float64 {
			if redisUp() {
				return 1
			}
			return 0
		}))
	}
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.Handler(reg))
	ms := &metricsServer{col: col, hs: transport.NewHTTPServer(mux, &transport.HTTPServerOptions{Addr: ln.Addr().String()}), served: make(chan error, 1), log: log}
	ms.hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	log.Info("serving metrics", "metrics", "http://"+ln.Addr().String()+"/metrics")
	go func() {
		err := ms.hs.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server failed", "err", err)
		}
		ms.served <- err
	}()
	return ms, nil
}

// stop shuts the metrics server down, letting scrapes under way finish
// for at most grace.
func (ms *metricsServer) stop(grace time.Duration) error {
	err := shutdown(ms.hs.Shutdown, grace, ms.log)
	ms.hs.Close() // past the deadline: cut what is left
	if serr := <-ms.served; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// registerInstance adds mcpwire_instance_info{instance="NAME"}, always 1:
// which of the instances sharing a Redis (-instance) a scrape came from.
func registerInstance(reg prometheus.Registerer, instance string) error {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "mcpwire_instance_info",
		Help:        "Always 1; its label instance is this server's -instance name.",
		ConstLabels: prometheus.Labels{"instance": instance},
	})
	g.Set(1)
	return reg.Register(g)
}
