package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/projections/synth"
	"github.com/bridgelog/bridgelog/topics"
)

var logCmd = &cobra.Command{
	Use:   "log",
	Short: "Look at the event log: inspect, tail, generate, back up",
}

var inspectFlags struct {
	topic     string
	partition int32
	from      int64
	limit     int
	json      bool
}

var logInspectCmd = &cobra.Command{
	Use:   "inspect [--topic T] [--partition P] [--from N] [--limit K] [--json]",
	Short: "Print events of a topic readably (or as JSON lines)",
	Long: `inspect prints up to --limit events in all of --topic (or of --partition
only), partition after partition, each from offset --from: position, type,
source key, aggregate, times and the payload decoded to JSON. With --json
each event is one JSON object per line. Records that do not decode are
printed as errors with their position; inspect goes on. It only reads
(beside a running relay too).`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		lg, err := openLogReader(cmd.Context())
		if err != nil {
			return err
		}
		defer lg.Close()
		p := newPrinter(cmd.OutOrStdout(), inspectFlags.json)
		parts, err := partitionsOf(cmd.Context(), lg, inspectFlags.topic, inspectFlags.partition)
		if err != nil {
			return err
		}
		return inspect(cmd.Context(), lg, p, parts)
	},
}

// inspect prints up to --limit records in all of parts, partition after
// partition, each from --from.
func inspect(ctx context.Context, lg topics.Log, p *printer, parts []int32) error {
	left := inspectFlags.limit
	if left < 0 {
		return fmt.Errorf("--limit %d: must be >= 0", left)
	}
	for _, part := range parts {
		for from := inspectFlags.from; left > 0 && p.err == nil; {
			recs, err := lg.Read(ctx, inspectFlags.topic, part, from, left)
			if err != nil {
				return fmt.Errorf("read %s/%d@%d: %w", inspectFlags.topic, part, from, err)
			}
			if len(recs) == 0 {
				break // the partition's end
			}
			for _, rec := range recs {
				p.print(rec)
			}
			left -= len(recs)
			from = recs[len(recs)-1].Offset + 1
		}
	}
	return p.err
}

var tailFlags struct {
	topics []string
	lines  int64
	follow bool
	json   bool
	poll   time.Duration
}

var logTailCmd = &cobra.Command{
	Use:   "tail [--topic T]... [-n N] [--follow] [--json]",
	Short: "Print the latest events, and with --follow every new one",
	Long: `tail prints the last -n events of each partition of the topics (default:
every data topic), then with --follow keeps printing new events as they are
appended, until interrupted. Events of different partitions interleave in the
order they are read. It only reads: beside a running relay it shows each batch
of appends once it is whole in every partition.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		lg, err := openLogReader(ctx)
		if err != nil {
			return err
		}
		defer lg.Close()
		names := tailFlags.topics
		if len(names) == 0 {
			for _, s := range topics.Topics() {
				if s.Name != topics.TopicBench {
					names = append(names, s.Name)
				}
			}
		}
		p := newPrinter(cmd.OutOrStdout(), tailFlags.json)
		next := map[string][]int64{}
		for _, t := range names {
			ends, err := lg.EndOffsets(ctx, t)
			if err != nil {
				return fmt.Errorf("end offsets of %s: %w", t, err)
			}
			for i := range ends {
				ends[i] = max(0, ends[i]-tailFlags.lines)
			}
			next[t] = ends
		}
		for {
			read := 0
			for _, t := range names {
				for part, from := range next[t] {
					recs, err := lg.Read(ctx, t, int32(part), from, 1000)
					if err != nil {
						if ctx.Err() != nil {
							return nil
						}
						return fmt.Errorf("read %s/%d@%d: %w", t, part, from, err)
					}
					for _, rec := range recs {
						p.print(rec)
						next[t][part] = rec.Offset + 1
					}
					read += len(recs)
				}
			}
			if p.err != nil || (!tailFlags.follow && read == 0) {
				return p.err
			}
			if read == 0 {
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(tailFlags.poll):
				}
			}
		}
	},
}

var generateFlags struct {
	events int
	seed   uint64
	dups   float64
	confl  float64
	relay  bool
}

var logGenerateCmd = &cobra.Command{
	Use:   "generate --events N",
	Short: "Append a realistic synthetic bridge log (demos, benchmarks)",
	Long: `generate appends N events: deposits and withdrawals going detected →
confirmed → minted / executed (about 3% failing), interleaved like a busy
bridge, plus exact duplicates (a restarted relayer re-sending) and a few
conflicting duplicates (same source key, different content). With
--relay-events it adds what a running relayer writes besides: each mint's and
claim's transaction intent and outcome, chain scans, and batches of 128
withdrawals (created, anchored, each leaf batched and its claim requested), as
in a relay's own log: a withdrawal goes detected, confirmed, batched, anchored,
claimed, executed. The same --seed gives the same log.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		lg, err := openLog(cmd.Context())
		if err != nil {
			return err
		}
		defer lg.Close()
		cfg := synth.Config{Events: generateFlags.events, Seed: generateFlags.seed,
			DuplicateRate: generateFlags.dups, ConflictRate: generateFlags.confl, RelayEvents: generateFlags.relay}
		return runGenerate(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &engines{Log: lg}, cfg)
	},
}

func runGenerate(ctx context.Context, out, errOut io.Writer, eng *engines, cfg synth.Config) error {
	if cfg.Events <= 0 {
		return fmt.Errorf("--events %d: must be > 0", cfg.Events)
	}
	if cfg.Seed == 0 {
		// A fresh seed per run, so that generating twice appends new
		// deposits rather than duplicates of the old ones.
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	bar := newProgress(errOut, "generate")
	start := time.Now()
	s, err := synth.Generate(ctx, eng.Log, cfg, func(done int) {
		bar.update(projections.Progress{Done: int64(done), Total: int64(cfg.Events)})
	})
	bar.finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "appended %d events in %v (seed %d): %d deposits, %d withdrawals, %d duplicates, %d conflicting duplicates\n",
		s.Events, time.Since(start).Round(time.Millisecond), cfg.Seed, s.Deposits, s.Withdrawals, s.Duplicates, s.Conflicts)
	return nil
}

// partitionsOf lists the partitions to read: one, or all of the topic.
func partitionsOf(ctx context.Context, lg topics.Log, topic string, part int32) ([]int32, error) {
	ends, err := lg.EndOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("end offsets of %s: %w", topic, err)
	}
	if part >= 0 {
		if int(part) >= len(ends) {
			return nil, fmt.Errorf("--partition %d: %s has %d partitions", part, topic, len(ends))
		}
		return []int32{part}, nil
	}
	out := make([]int32, len(ends))
	for i := range ends {
		out[i] = int32(i)
	}
	return out, nil
}

// printer writes records readably or as JSON lines.
type printer struct {
	w    io.Writer
	json bool
	cat  *topics.Catalog
	err  error // first write error
}

func newPrinter(w io.Writer, asJSON bool) *printer {
	return &printer{w: w, json: asJSON, cat: topics.DefaultCatalog()}
}

// eventJSON is the --json form of one event.
type eventJSON struct {
	Topic         string          `json:"topic"`
	Partition     int32           `json:"partition"`
	Offset        int64           `json:"offset"`
	ID            string          `json:"id,omitempty"`
	Type          string          `json:"type,omitempty"`
	SchemaVersion uint16          `json:"schemaVersion,omitempty"`
	SourceKey     string          `json:"sourceKey,omitempty"`
	AggregateID   string          `json:"aggregateId,omitempty"`
	PartitionKey  string          `json:"partitionKey,omitempty"`
	CausationID   string          `json:"causationId,omitempty"`
	CorrelationID string          `json:"correlationId,omitempty"`
	OccurredAt    *time.Time      `json:"occurredAt,omitempty"`
	RecordedAt    *time.Time      `json:"recordedAt,omitempty"`
	Payload       json.RawMessage `json:"payload,omitempty"`
	Error         string          `json:"error,omitempty"`
}

func (p *printer) print(rec topics.Record) {
	if p.err != nil {
		return
	}
	ev := eventJSON{Topic: rec.Topic, Partition: rec.Partition, Offset: rec.Offset}
	env, err := topics.DecodeEnvelope(rec.Value)
	if err == nil {
		ev.ID, ev.Type, ev.SchemaVersion, ev.SourceKey = env.ID, env.Type, env.SchemaVersion, env.SourceKey
		ev.AggregateID, ev.PartitionKey, ev.CausationID, ev.CorrelationID = env.AggregateID, env.PartitionKey, env.CausationID, env.CorrelationID
		if !env.OccurredAt.IsZero() {
			ev.OccurredAt = &env.OccurredAt
		}
		if !env.RecordedAt.IsZero() {
			ev.RecordedAt = &env.RecordedAt
		}
		ev.Payload, err = projections.PayloadJSON(p.cat, &env)
	}
	if err != nil {
		ev.Error = err.Error()
	}
	if p.json {
		b, jerr := json.Marshal(ev)
		if jerr == nil {
			_, p.err = fmt.Fprintf(p.w, "%s\n", b)
		} else {
			p.err = jerr
		}
		return
	}
	pos := fmt.Sprintf("%s/%d@%d", rec.Topic, rec.Partition, rec.Offset)
	if ev.Type == "" {
		_, p.err = fmt.Fprintf(p.w, "%s  ERROR %s\n", pos, ev.Error)
		return
	}
	line := fmt.Sprintf("%s  %s v%d  key=%s  aggregate=%s  id=%s", pos, ev.Type, ev.SchemaVersion, ev.SourceKey, ev.AggregateID, ev.ID)
	if ev.OccurredAt != nil {
		line += "  occurred=" + ev.OccurredAt.Format(time.RFC3339Nano)
	}
	if ev.RecordedAt != nil {
		line += "  recorded=" + ev.RecordedAt.Format(time.RFC3339Nano)
	}
	if ev.CausationID != "" {
		line += "  caused_by=" + ev.CausationID
	}
	if ev.Error != "" {
		line += "  ERROR " + ev.Error
	} else {
		line += "\n    " + string(ev.Payload)
	}
	_, p.err = fmt.Fprintln(p.w, line)
}

func init() {
	f := logInspectCmd.Flags()
	f.StringVar(&inspectFlags.topic, "topic", topics.TopicBridge, "topic to read")
	f.Int32Var(&inspectFlags.partition, "partition", -1, "partition to read (-1: all)")
	f.Int64Var(&inspectFlags.from, "from", 0, "first offset")
	f.IntVar(&inspectFlags.limit, "limit", 20, "events to print in all (partition after partition)")
	f.BoolVar(&inspectFlags.json, "json", false, "one JSON object per line")
	f = logTailCmd.Flags()
	f.StringSliceVar(&tailFlags.topics, "topic", nil, "topic to follow (repeatable; default every data topic)")
	f.Int64VarP(&tailFlags.lines, "lines", "n", 10, "events to print from the end of each partition")
	f.BoolVarP(&tailFlags.follow, "follow", "f", false, "keep printing new events until interrupted")
	f.BoolVar(&tailFlags.json, "json", false, "one JSON object per line")
	f.DurationVar(&tailFlags.poll, "poll", 200*time.Millisecond, "how often --follow looks for new events")
	f = logGenerateCmd.Flags()
	f.IntVar(&generateFlags.events, "events", 10000, "events to append")
	f.Uint64Var(&generateFlags.seed, "seed", 0, "generator seed (0: a new one each run)")
	f.Float64Var(&generateFlags.dups, "duplicate-rate", 0.02, "share of events re-sent identically")
	f.Float64Var(&generateFlags.confl, "conflict-rate", 0.002, "share of events re-sent with different content")
	f.BoolVar(&generateFlags.relay, "relay-events", false, "add the relayer's own events: transaction intents and outcomes, chain scans, batches")
	logCmd.AddCommand(logInspectCmd, logTailCmd, logGenerateCmd)
	rootCmd.AddCommand(logCmd)
}
