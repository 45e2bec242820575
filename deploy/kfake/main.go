// Command kfake runs a one-broker Kafka-protocol fake (kfake, from
// franz-go) as its own process, for development and for tests that kill
// and restart relayer processes around a broker that stays up:
//
//	go run ./deploy/kfake --port 9092 --data /tmp/kfake
//
// It prints "listening 127.0.0.1:PORT" and then "ready" on stdout once the
// port accepts connections, and shuts down cleanly (flushing --data) on
// SIGINT or SIGTERM. kfake is a test fake: production runs Apache Kafka.
//
// Topics are never compacted and never expire here: bridgelog's topics are
// its source of truth, and kfake's compaction has dropped records in
// probes.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		os.Exit(1)
	}
}

func run() error {
	port := flag.Int("port", 9092, "TCP port on 127.0.0.1 (0 picks a free one)")
	dataDir := flag.String("data", "", "directory to persist topics and offsets in; empty keeps everything in memory")
	partitions := flag.Int("partitions", 6, "partition count of auto-created topics")
	syncWrites := flag.Bool("sync", false, "fsync every produced batch (slower; survives a machine crash)")
	logLevel := flag.String("log-level", "warn", "none, error, warn, info or debug")
	flag.Parse()

	level, ok := map[string]kfake.LogLevel{
		"none": kfake.LogLevelNone, "error": kfake.LogLevelError, "warn": kfake.LogLevelWarn,
		"info": kfake.LogLevelInfo, "debug": kfake.LogLevelDebug,
	}[strings.ToLower(*logLevel)]
	if !ok {
		return fmt.Errorf("unknown --log-level %q", *logLevel)
	}
	opts := []kfake.Opt{
		kfake.Ports(*port),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(*partitions),
		kfake.WithLogger(kfake.BasicLogger(os.Stderr, level)),
		kfake.BrokerConfigs(map[string]string{
			"log.retention.ms":   "-1",
			"log.cleanup.policy": "delete",
		}),
	}
	if *dataDir != "" {
		opts = append(opts, kfake.DataDir(*dataDir))
	}
	if *syncWrites {
		opts = append(opts, kfake.SyncWrites())
	}
	// Subscribe before listening so that a signal sent right after "ready"
	// is not lost.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)

	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	// NewCluster returns with the listener bound, so connections made
	// from here on are accepted.
	for _, addr := range c.ListenAddrs() {
		fmt.Println("listening", addr)
	}
	fmt.Println("ready")

	sig := <-sigs
	fmt.Fprintf(os.Stderr, "kfake: %s, shutting down\n", sig)
	done := make(chan struct{})
	go func() { c.Close(); close(done) }()
	select {
	case <-done:
		return nil
	case <-sigs:
		return fmt.Errorf("second signal, exiting before shutdown finished")
	}
}
