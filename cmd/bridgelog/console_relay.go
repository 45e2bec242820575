package main

import (
	"log/slog"
	"net/http"

	"github.com/bridgelog/bridgelog/analytics"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// relayConsole serves the relay's pages: GET / (indexers, flows by
// status, batches, gas, as `bridgelog status` reads them) and GET /audit.
// It only reads.
type relayConsole struct {
	log    topics.Log
	store  projections.Store
	finder analytics.Finder // nil: the audit section says it is unavailable
	logger *slog.Logger
}

type relayView struct {
	Status bridgeStatus
	Err    string
}

// routes adds the console's routes to mux (a metrics.Registry's).
func (c *relayConsole) routes(mux *http.ServeMux) {
	if c.logger == nil {
		c.logger = slog.Default()
	}
	mux.HandleFunc("GET /{$}", c.overview)
	mux.HandleFunc("GET /console.css", serveConsoleCSS)
	mux.Handle("GET /audit", auditHandler("relay", c.finder, c.logger))
}

func (c *relayConsole) overview(w http.ResponseWriter, r *http.Request) {
	var v relayView
	code := http.StatusOK
	st, err := readBridgeStatus(r.Context(), c.log, c.store)
	if err != nil {
		c.logger.Warn("console could not read the relay's status", "err", err)
		v.Err, code = err.Error(), http.StatusServiceUnavailable
	}
	v.Status = st
	renderConsole(w, c.logger, code, "relay", consolePage{Title: "overview", Role: "relay", Data: v})
}
