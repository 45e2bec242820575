// Package kafkatest starts kfake clusters for tests. kfake (from franz-go)
// speaks the Kafka protocol inside the test process; it is a test fake,
// production runs against real Apache Kafka.
package kafkatest

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/bridgelog/bridgelog/adapters/kafkalog"
)

// Start starts a one-broker kfake cluster on a free port and returns its
// bootstrap addresses. The cluster is closed when the test ends. Extra
// options (kfake.DataDir, kfake.BrokerConfigs, ...) are appended to the
// defaults. It fails the test at once if the cluster cannot start.
func Start(t testing.TB, opts ...kfake.Opt) []string {
	t.Helper()
	c := StartCluster(t, opts...)
	return c.ListenAddrs()
}

// StartCluster is [Start] returning the cluster itself, for tests that
// stop it or inject faults.
func StartCluster(t testing.TB, opts ...kfake.Opt) *kfake.Cluster {
	t.Helper()
	all := append([]kfake.Opt{
		kfake.NumBrokers(1),
		kfake.Ports(0), // a free port: tests run in parallel with other helpers
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(6),
	}, opts...)
	c, err := kfake.NewCluster(all...)
	if err != nil {
		t.Fatalf("kafkatest: start kfake cluster: %v", err)
	}
	t.Cleanup(c.Close)
	if len(c.ListenAddrs()) == 0 {
		t.Fatalf("kafkatest: kfake cluster listens nowhere")
	}
	return c
}

// Open starts a cluster with [Start] and opens a [kafkalog.Log] on it that
// accepts topic names outside the catalog. Fields of cfg other than
// Brokers are kept. The log is closed when the test ends.
func Open(t testing.TB, cfg kafkalog.Config) *kafkalog.Log {
	t.Helper()
	if len(cfg.Brokers) == 0 {
		cfg.Brokers = Start(t)
	}
	cfg.AllowUnknownTopics = true
	if cfg.Logger == nil {
		w := &testWriter{t: t}
		t.Cleanup(func() { w.done.Store(true) }) // runs after the log's Close
		cfg.Logger = slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := kafkalog.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("kafkatest: open kafka log on %v: %v", cfg.Brokers, err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// testWriter sends log lines to t.Log, so they show only for failed tests,
// and drops lines from goroutines that outlive the test.
type testWriter struct {
	t    testing.TB
	done atomic.Bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(string(p))
	}
	return len(p), nil
}
