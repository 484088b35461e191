package metrics

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the collector's metrics, with the Go runtime's and the
// process's, in Prometheus' exposition format. A series that cannot be
// gathered is logged and left out, the rest served: one bad name never
// costs every series. No answer shows koff's internals: a scrape that
// fails whole answers 500 with one line, the details in koff's log.
func Handler(c *Collector) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(c, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      logfLogger(c.o.Logf),
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				c.o.Logf("metrics: scrape failed: %v", p)
				http.Error(w, "koff: the scrape failed; koff's log says why", http.StatusInternalServerError)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

type logfLogger func(format string, args ...any)

func (l logfLogger) Println(v ...any) { l("metrics: %s", fmt.Sprint(v...)) }
