package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves what g gathers in the Prometheus text format (or
// OpenMetrics, when the scraper asks for it), for a server's /metrics. A
// collector that fails is left out of the answer, logged nowhere, rather
// than failing the whole scrape. Safe for concurrent use.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	})
}
