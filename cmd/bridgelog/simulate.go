package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/cmd/bridgelog/internal/simulate"
	"github.com/bridgelog/bridgelog/domain/twophase"
)

var simulateFlags struct {
	signers, quorum, events, streams int
	delayMs, jitterMs                int
	loss, duplicate, reorder         float64
	partition, lag                   string
	crash, invalidate, diverge       float64
	losePayout                       float64
	unpayable                        float64
	profile, behaviour               string
	byzantine, reserveOutputs        int
	seed                             uint64
	json                             bool
	eventEvery                       time.Duration
	proposalTimeout, tick            time.Duration
	checkProjections                 bool
	logDir                           string
}

var simulateCmd = &cobra.Command{
	Use:   "simulate [--signers N --quorum M --events E] [faults] [--seed S] [--json]",
	Short: "Run N signers of the two-phase signing protocol in virtual time under injected faults",
	Long: `simulate runs E signing events through N in-process signers: the real
signers (each with its own log, its own decisions, envelope checks and
projections of its facts), on a simulated ledger and a simulated network,
in virtual time (nothing sleeps). It checks on every fact of every event
that no two hashes of an event are committed (unless the first can never
be paid: an input was reorganised away), that no signer signs two
templates of an event, that no commit lacks a quorum of real votes, and
that every payout on the ledger pays its event exactly, once. It prints
events completed, refused and abandoned, rounds per event, commit latency (from the
first signer starting the event to the last signer's commit), retries,
timeouts without quorum, equivocations, rejected votes, throttled syncs and
what the faults did, and exits 1 if an invariant broke or an event was
left hanging. The same flags and --seed print the same output, byte for
byte. --log-dir DIR keeps each honest signer's log as an embedded log in
DIR/<signer>/log, to sink with analytics sink --data DIR/<signer>.

Faults:
  --delay-ms D --jitter-ms J   one-way delay D plus uniform [0, J) ms
  --loss P --duplicate P       a delivery is lost / arrives twice
  --reorder P                  a delivery is held back up to 10 x (D+J) ms
  --partition SPEC             SIZES@START+DURATION, comma-separated; e.g.
                               --partition 2/3@10s+30s splits 5 signers into
                               the first 2 and the other 3 from 10 s to 40 s
  --crash P                    per event, a signer crashes right after it
                               records a decision (before it sends it) and
                               restarts from its log 0.5-3 s later
  --invalidate P               per event, an input of the first proposed
                               template is reorganised away before commit
  --lose-payout P              per event, its first signed payout never
                               lands: the node drops it (it is sent again)
                               or a conflicting transaction spends an input
                               (it is voided, once deep, and replaced)
  --lag SPEC                   SIGNER=DURATION, comma-separated; e.g.
                               --lag 3=2s makes signer 3's node see the
                               ledger and the source 2 s late
  --diverge P                  per event, the nodes of half the honest
                               signers see the first proposal's first input
                               late (as just created): they build another
                               template until it is deep in their view

Unpayable burns:
  --unpayable P                per event, the burn names a destination or
                               amount the group refuses (another network's
                               address, the group's own, a denied one, over
                               the per-event limit): every signer Refuses it,
                               its stream moves on, a quorum signs its
                               refusal certificate. The report counts
                               refused, refunds (certificates that verify)
                               and stalled_streams (streams with an event
                               pending at the end); completed + refused +
                               abandoned must be the events

Byzantine signers (--byzantine F: the last F signers) run the real
signer, but what they send is rewritten (--byzantine-behaviour):
  equivocate         each proposal goes to half the peers as it is and to
                     the other half as another valid template (the first
                     differing one that half proposes, else its own)
  withhold           votes, commits and sync answers of an event never
                     reach some or all peers
  conflicting-locks  Profile B: two lock messages for one (event, round)
                     and locks on outpoints other certificates hold
                     (Profile A: equivocate)
  forge-evidence     commits carry forged evidence (its own proposal
                     repeated, or re-signed naming other proposers), and
                     each proposal comes with a forged commit of another
                     template or of a theft
  round-jump         besides its state's messages, signed votes for the
                     last round and sync answers nobody asked for
  reserve-spam       besides its state's messages, reserve split proposals
                     for far nonces and for the next one, due or not
                     (needs --reserve-outputs)
  mixed              each Byzantine signer draws one of equivocate,
                     withhold, forge-evidence, conflicting-locks per event
The invariants are checked over the honest signers. Profile A assumes no
signer equivocates: with an equivocating signer and diverging views it
splits commits, and the report shows it. Profile B (--profile b: f =
(N-1)/3, quorum 2f+1, or more when N > 3f+1 so that two quorums share
f+1 signers) holds with up to f Byzantine signers.

Examples:
  bridgelog simulate --signers 5 --events 100
  bridgelog simulate --signers 20 --quorum 11 --events 1000 --loss 0.1 --jitter-ms 50
  bridgelog simulate --signers 5 --events 50 --partition 2/3@10s+30s --crash 0.1 --json
  bridgelog simulate --profile b --signers 7 --byzantine 2 --byzantine-behaviour mixed --events 50`,
	Args: cobra.NoArgs,
	RunE: runSimulate,
}

func init() {
	f := simulateCmd.Flags()
	fl := &simulateFlags
	f.IntVar(&fl.signers, "signers", 5, "signers in the group (N, at most 20)")
	f.IntVar(&fl.quorum, "quorum", 0, "commit quorum M (default N/2+1 in Profile A, which refuses M <= N/2; in Profile B max(2f+1, (N+f+2)/2) with f = (N-1)/3)")
	f.IntVar(&fl.events, "events", 100, "signing events (burns to pay)")
	f.IntVar(&fl.streams, "streams", 1, "streams the events are spread over (each paid in nonce order)")
	f.DurationVar(&fl.eventEvery, "event-every", 100*time.Millisecond, "virtual time between two burns at the source")
	f.IntVar(&fl.delayMs, "delay-ms", 20, "one-way network delay, ms")
	f.IntVar(&fl.jitterMs, "jitter-ms", 0, "extra random delay in [0, J) ms per delivery")
	f.Float64Var(&fl.loss, "loss", 0, "probability that a delivery is lost")
	f.Float64Var(&fl.duplicate, "duplicate", 0, "probability that a delivery arrives twice")
	f.Float64Var(&fl.reorder, "reorder", 0, "probability that a delivery is held back and overtaken")
	f.StringVar(&fl.partition, "partition", "", "partitions, SIZES@START+DURATION (e.g. 2/3@10s+30s)")
	f.Float64Var(&fl.crash, "crash", 0, "per event, probability that a signer crashes and restarts")
	f.Float64Var(&fl.invalidate, "invalidate", 0, "per event, probability that a proposed input is reorganised away")
	f.Float64Var(&fl.losePayout, "lose-payout", 0, "per event, probability that its first signed payout never lands (dropped, or an input spent by a conflicting transaction)")
	f.StringVar(&fl.lag, "lag", "", "lagging nodes, SIGNER=DURATION (e.g. 3=2s)")
	f.Float64Var(&fl.unpayable, "unpayable", 0, "per event, probability that the burn names a destination or amount the group refuses")
	f.Float64Var(&fl.diverge, "diverge", 0, "per event, probability that half the honest signers' nodes see the first proposed input late")
	f.StringVar(&fl.profile, "profile", "a", "fault model: a (crash faults, no equivocation, quorum > N/2) or b (up to f Byzantine, N >= 3f+1, lock certificates)")
	f.IntVar(&fl.byzantine, "byzantine", 0, "Byzantine signers F: the last F signers")
	f.StringVar(&fl.behaviour, "byzantine-behaviour", "mixed", "what Byzantine signers do: equivocate, withhold, conflicting-locks, forge-evidence, round-jump, reserve-spam or mixed")
	f.IntVar(&fl.reserveOutputs, "reserve-outputs", 0, "the deep UTXO reserve (reserveOutputs): an idle group holding fewer outputs splits its largest into this many; 0: off")
	f.Uint64Var(&fl.seed, "seed", 1, "seed of every random choice; the same seed gives the same run")
	f.BoolVar(&fl.json, "json", false, "print one JSON object")
	f.DurationVar(&fl.proposalTimeout, "proposal-timeout", 5*time.Second, "PROPOSAL_TIMEOUT_MS of round 0")
	f.DurationVar(&fl.tick, "tick", time.Second, "how often each signer runs its timers and anti-entropy")
	f.BoolVar(&fl.checkProjections, "check-projections", false, "at the end, fold every signer's log into its SQL projections (SQLite) and compare them with its state")
	f.StringVar(&fl.logDir, "log-dir", "", "at the end, write each honest signer's log to an embedded log in DIR/<signer>/log (sink one with: analytics sink --data DIR/<signer>)")
	rootCmd.AddCommand(simulateCmd)
}

func runSimulate(cmd *cobra.Command, _ []string) error {
	for _, name := range []string{"data", "log", "store", "brokers", "pg-dsn"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			return fmt.Errorf("--%s does not apply to simulate: every simulated signer keeps its log in memory (--log-dir writes them out at the end)", name)
		}
	}
	fl := simulateFlags
	parts, err := simulate.ParsePartitions(fl.partition)
	if err != nil {
		return err
	}
	lags, err := simulate.ParseLags(fl.lag)
	if err != nil {
		return err
	}
	cfg := simulate.Config{Signers: fl.signers, Quorum: fl.quorum, Events: fl.events, Streams: fl.streams,
		EventEvery: fl.eventEvery, Crash: fl.crash, Invalidate: fl.invalidate, Diverge: fl.diverge, LosePayout: fl.losePayout, Unpayable: fl.unpayable, Lags: lags, Seed: fl.seed,
		Profile: twophase.Profile(fl.profile), Byzantine: fl.byzantine, Behaviour: simulate.Behaviour(fl.behaviour),
		CheckProjections: fl.checkProjections, LogDir: fl.logDir}
	cfg.Faults.Delay = time.Duration(fl.delayMs) * time.Millisecond
	cfg.Faults.Jitter = time.Duration(fl.jitterMs) * time.Millisecond
	cfg.Faults.Loss, cfg.Faults.Duplicate, cfg.Faults.Reorder = fl.loss, fl.duplicate, fl.reorder
	cfg.Faults.ReorderBy = 10 * (cfg.Faults.Delay + cfg.Faults.Jitter)
	cfg.Faults.Partitions = parts
	cfg.Params.ProposalTimeout, cfg.Params.Tick = fl.proposalTimeout, fl.tick
	cfg.Params.ReserveOutputs = fl.reserveOutputs
	rep, err := simulate.Run(cfg)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if fl.json {
		if err := rep.WriteJSON(out); err != nil {
			return err
		}
	} else {
		rep.WriteText(out)
	}
	if !rep.InvariantsHeld() {
		return &exitError{code: 1, err: errors.New(fmt.Sprintf("simulate: invariants broken or events left hanging (seed %d)", fl.seed))}
	}
	return nil
}
