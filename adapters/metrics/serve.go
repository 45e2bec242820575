package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server timeouts: a slow or idle client must not pin a connection, and
// shutdown must not wait forever on one.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = scrapeTimeout + 5*time.Second
	idleTimeout       = 60 * time.Second
	shutdownTimeout   = 5 * time.Second
)

// Mux routes GET /metrics to r's handler and GET /healthz to a 200 "ok".
func (r *Registry) Mux() *http.ServeMux { return r.MuxReady(nil) }

// MuxReady is [Registry.Mux] whose /healthz asks ready (nil: always
// ready): an error is a 503 "not ready" with the error's text, so that a
// process that runs but cannot do its work says why; /metrics answers
// either way.
func (r *Registry) MuxReady(ready func() error) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", r.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if ready != nil {
			if err := ready(); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = fmt.Fprintf(w, "not ready\n%s\n", err)
				return
			}
		}
		_, _ = w.Write([]byte("ok"))
	})
	return mux
}

// Serve listens on addr and serves [Registry.Mux] until ctx ends, then
// shuts down gracefully. It returns nil after a clean shutdown and an error
// if it cannot listen or the server fails.
func Serve(ctx context.Context, addr string, r *Registry) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics: listen %s: %w", addr, err)
	}
	return ServeListener(ctx, ln, r)
}

// ServeListener is [Serve] on a listener the caller opened (a test's
// 127.0.0.1:0, say). It closes ln.
func ServeListener(ctx context.Context, ln net.Listener, r *Registry) error {
	return ServeHandler(ctx, ln, r.Mux(), r.logger)
}

// ServeHandler serves h (a [Registry.Mux] with a process's own routes
// added, say) on ln with the metrics server's timeouts until ctx ends,
// then shuts down gracefully. It closes ln.
func ServeHandler(ctx context.Context, ln net.Listener, h http.Handler, logger *slog.Logger) error {
	return ServeHandlerIdle(ctx, ln, h, logger, idleTimeout)
}

// ServeHandlerIdle is [ServeHandler] with its own keep-alive idle
// timeout: a server behind a connection limit frees an idle client's
// slot sooner.
func ServeHandlerIdle(ctx context.Context, ln net.Listener, h http.Handler, logger *slog.Logger, idle time.Duration) error {
	if logger == nil {
		logger = slog.Default()
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idle,
	}
	addr := ln.Addr().String()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	logger.Info("metrics server listening", "addr", addr)

	select {
	case err := <-done:
		return fmt.Errorf("metrics: serve %s: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("metrics: shutdown %s: %w", addr, err)
	}
	logger.Info("metrics server stopped", "addr", addr)
	return nil
}
