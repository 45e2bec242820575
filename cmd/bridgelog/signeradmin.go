package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/topics"
)

var signerAdminCmd = &cobra.Command{
	Use:   "admin",
	Short: "Operator actions on a stopped signer (seed 001, 15.1), each recorded on its log with the operator and the reason",
	Long: `The admin actions of the runbook for Abandoned events and stream holes:
reset restarts an event at round 0 of a new epoch, reinject hands the signer
an external request by hand. Each needs the signer's admin credential (a file
whose content, without surrounding white space, has the SHA-256 set as
admin.credentialSha256 in the signer config) and records who did it and why:
signing.admin_reset or signing.admin_reinjected on the signer's own log.

They work on the signer's data directory while the signer is stopped: they
open its embedded log (DATA/log; a running signer holds it, and the command
then refuses), replay it, record the action and exit. Nothing is proposed,
signed or sent: the signer, once started again, starts the event's round
when the event's turn comes. Each signer's log is its own: run the action on
every member, stopping one at a time. Votes count only between signers in
the same epoch, so reset an event on every member, the same number of times.

The signer config (JSON; relative paths are relative to it):
  {"self": "s1",
   "group": {"profile": "a", "quorum": 2, "network": "sim",
             "changeAddress": "sim:group-main",
             "members": [{"id": "s1", "identityKey": "HEX", "payoutKey": "HEX"}, ...]},
             (profile "b": Byzantine-tolerant lock certificates; add "faults": f,
              with at least 3f+1 members and a quorum of 2f+1 at N = 3f+1)
   "identityKeyFile": "s1.identity",  (sealed by bridgelog keys new|import --kind identity; mode 600)
   "payoutKeyFile": "s1.payout",      (sealed by bridgelog keys new|import --kind kaspa; sim: the
                                       network's key seed in plain; mode 600)
   "passphraseFile": "s1.passphrase", (or "passphraseEnv": "VAR": opens both sealed files)
     (plain hex key files, the seed or secret as 64 hex digits, are accepted on sim,
      kaspa-simnet and kaspa-devnet only)
   "data": "s1-data",
   "admin": {"credentialSha256": "HEX"},
   "params": {"proposalTimeout": "5s", ...}, "policy": {...}}`,
}

// adminFlags are what every admin action needs: the signer, who acts,
// why, and the proof that they may.
type adminFlags struct {
	config, operator, reason, credential string
}

func (f *adminFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.config, "config", "", "the signer's config file (JSON)")
	fl.StringVar(&f.operator, "operator", "", "who takes the action (recorded)")
	fl.StringVar(&f.reason, "reason", "", "why (recorded)")
	fl.StringVar(&f.credential, "credential", "", "file holding the signer's admin credential (readable by its owner only)")
	for _, name := range []string{"config", "operator", "reason", "credential"} {
		_ = c.MarkFlagRequired(name)
	}
}

var resetFlags struct {
	adminFlags
	event string
}

var signerResetCmd = &cobra.Command{
	Use:   "reset --config FILE --event ID --operator NAME --reason TEXT --credential FILE",
	Short: "Restart an event (an Abandoned one, say) at round 0 of a new epoch",
	Long: `reset forgets the event's votes and commit at this signer and restarts it at
round 0 of the next epoch (AdminResetEvent): the signer proposes for it again
when the event's turn comes. A signer still never signs a second template of
an event, and a Completed event cannot be reset.

Example:
  bridgelog signer admin reset --config s1.json --event 0x3f… \
    --operator alice --reason "node s2 was out of sync; fixed" --credential ~/.bridgelog/admin`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		if err := signerDataFlagsUnset(cmd); err != nil {
			return err
		}
		id, err := twophase.ParseHash(resetFlags.event)
		if err != nil {
			return fmt.Errorf("--event: %w", err)
		}
		res, err := runSignerAdmin(cmd.Context(), resetFlags.adminFlags, resetAction(id))
		if err != nil {
			return err
		}
		return res.print(cmd.OutOrStdout())
	},
}

var reinjectFlags struct {
	adminFlags
	event twophase.SigningEvent
	tx    string
}

var signerReinjectCmd = &cobra.Command{
	Use: "reinject --config FILE --stream S --nonce N --destination ADDR --amount SOMPI " +
		"[--source-chain C --source-tx HASH --source-log-index I --source-block B] --operator NAME --reason TEXT --credential FILE",
	Short: "Hand the signer an external request by hand (idempotent by event id)",
	Long: `reinject submits a signing event as an operator (AdminReplayExternal): the
Nonce-th request of Stream, paying Amount sompi to Destination. Its id is a
hash of stream, nonce, destination and amount, so reinjecting a request the
signer already has records the audit fact and nothing else. The source
fields say where the request was seen; they order events of different
streams and are not part of the id.

Example:
  bridgelog signer admin reinject --config s1.json --stream evm:1:0xBridge --nonce 7 \
    --destination sim:alice --amount 150000 --source-chain evm:1 --source-block 1200 \
    --operator alice --reason "stream hole at nonce 7" --credential ~/.bridgelog/admin`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		if err := signerDataFlagsUnset(cmd); err != nil {
			return err
		}
		ev := reinjectFlags.event
		if reinjectFlags.tx != "" {
			h, err := twophase.ParseHash(reinjectFlags.tx)
			if err != nil {
				return fmt.Errorf("--source-tx: %w", err)
			}
			ev.Source.TxHash = h
		}
		res, err := runSignerAdmin(cmd.Context(), reinjectFlags.adminFlags, reinjectAction(ev))
		if err != nil {
			return err
		}
		return res.print(cmd.OutOrStdout())
	},
}

func init() {
	resetFlags.register(signerResetCmd)
	signerResetCmd.Flags().StringVar(&resetFlags.event, "event", "", "the event id (0x and 64 hex digits)")
	_ = signerResetCmd.MarkFlagRequired("event")

	reinjectFlags.register(signerReinjectCmd)
	f, ev := signerReinjectCmd.Flags(), &reinjectFlags.event
	f.StringVar(&ev.Stream, "stream", "", "the request's stream")
	f.Uint64Var(&ev.Nonce, "nonce", 0, "its nonce in the stream")
	f.StringVar(&ev.Destination, "destination", "", "the address to pay (sim:NAME on the sim network)")
	f.Uint64Var(&ev.Amount, "amount", 0, "the amount to pay, in sompi")
	f.StringVar(&ev.Source.Chain, "source-chain", "", "the chain it was seen on (e.g. evm:1)")
	f.StringVar(&reinjectFlags.tx, "source-tx", "", "the source transaction hash")
	f.Uint32Var(&ev.Source.LogIndex, "source-log-index", 0, "the log index in the source transaction")
	f.Uint64Var(&ev.Source.Block, "source-block", 0, "the source block")
	for _, name := range []string{"stream", "nonce", "destination", "amount"} {
		_ = signerReinjectCmd.MarkFlagRequired(name)
	}

	signerAdminCmd.AddCommand(signerResetCmd, signerReinjectCmd)
	signerCmd.AddCommand(signerAdminCmd)
}

// signerDataFlagsUnset refuses the global engine flags: a signer's data
// directory is in its config, and silently ignoring --data would act on
// another directory than the operator named.
func signerDataFlagsUnset(cmd *cobra.Command) error {
	for _, name := range []string{"data", "log", "store", "brokers", "pg-dsn"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			return fmt.Errorf("--%s does not apply to signer commands: the signer's data directory is \"data\" in its --config", name)
		}
	}
	return nil
}

// ErrAdminCredential: an admin action without the signer's credential.
var ErrAdminCredential = errors.New("admin credential refused")

// Bounds of what an operator writes into the log.
const (
	maxOperatorBytes = 128
	maxReasonBytes   = 1024
)

// adminAction decides one action on the replayed state.
type adminAction func(s *signerSetup, st *twophase.State, f adminFlags, en twophase.Env) (twophase.Step, error)

func resetAction(id twophase.Hash) adminAction {
	return func(_ *signerSetup, st *twophase.State, f adminFlags, en twophase.Env) (twophase.Step, error) {
		return st.AdminReset(id, f.operator, f.reason, en)
	}
}

func reinjectAction(ev twophase.SigningEvent) adminAction {
	return func(s *signerSetup, st *twophase.State, f adminFlags, en twophase.Env) (twophase.Step, error) {
		if err := checkReinjected(ev, s.protocol.Rules); err != nil {
			return twophase.Step{}, err
		}
		if err := checkPayable(st, ev); err != nil {
			return twophase.Step{}, err
		}
		return st.AdminReinject(ev, f.operator, f.reason, en)
	}
}

// checkPayable refuses, before anything is recorded, an operator's
// request that the group would only record Refused (the policy or the
// ledger's rules forbid it): a mistake to correct, like a typo, and its
// stream's nonce stays free for the corrected request.
func checkPayable(st *twophase.State, ev twophase.SigningEvent) error {
	if r, detail, no := st.Unpayable(ev); no {
		return fmt.Errorf("%w: the group would refuse this request (%s): %s", twophase.ErrAdmin, r, detail)
	}
	return nil
}

// adminResult is what an action recorded, and the state after it.
type adminResult struct {
	state *twophase.State
	facts []twophase.Fact
}

// runSignerAdmin checks the config and the credential, opens the stopped
// signer's log, replays it, decides the action offline and appends its
// facts. A refused credential or action appends nothing.
func runSignerAdmin(ctx context.Context, f adminFlags, act adminAction) (*adminResult, error) {
	if err := checkOperatorReason(f.operator, f.reason); err != nil {
		return nil, err
	}
	setup, err := loadSignerConfig(f.config)
	if err != nil {
		return nil, err
	}
	if err := checkAdminCredential(setup, f.credential); err != nil {
		return nil, err
	}
	lg, err := openStoppedSignerLog(ctx, setup)
	if err != nil {
		return nil, err
	}
	defer lg.Close()
	st, err := twophase.NewState(setup.protocol)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSignerConfig, setup.path, err)
	}
	n, err := signing.Replay(ctx, lg, st.Apply)
	if err != nil {
		return nil, fmt.Errorf("replay the signer's log %s: %w", setup.logDir(), err)
	}
	slog.Debug("signer log replayed", "signer", setup.protocol.Self, "facts", n)
	step, err := act(setup, st, f, offlineEnv(time.Now()))
	if err != nil {
		return nil, err
	}
	facts := adminFacts(step.Facts)
	evs := make([]domain.Event, len(facts))
	for i, fact := range facts {
		evs[i] = fact
	}
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	if _, err := app.Append(ctx, handlers.Cause{OccurredAt: time.Now()}, evs...); err != nil {
		return nil, fmt.Errorf("record the admin action on %s: %w", setup.logDir(), err)
	}
	slog.Debug("admin action recorded", "signer", setup.protocol.Self, "facts", len(facts), "offline_decisions_left_to_the_signer", len(step.Facts)-len(facts))
	return &adminResult{state: st, facts: facts}, nil
}

// checkOperatorReason refuses an action that does not say who took it
// and why, or says it at a length the log should not hold.
func checkOperatorReason(operator, reason string) error {
	switch {
	case operator == "" || reason == "":
		return fmt.Errorf("%w: --operator and --reason are required", twophase.ErrAdmin)
	case len(operator) > maxOperatorBytes || len(reason) > maxReasonBytes:
		return fmt.Errorf("%w: --operator is at most %d bytes, --reason at most %d", twophase.ErrAdmin, maxOperatorBytes, maxReasonBytes)
	}
	return nil
}

// checkAdminCredential compares the credential file's SHA-256 with the
// configured one in constant time.
func checkAdminCredential(s *signerSetup, path string) error {
	if s.adminHash == nil {
		return fmt.Errorf("%w: %s sets no admin.credentialSha256, so this signer takes no admin actions", ErrAdminCredential, s.path)
	}
	_, err := credentialFileMatches(path, "this signer's", s.adminHash)
	return err
}

// credentialFileMatches reads the credential file at path (readable by
// its owner only) and returns the index of the SHA-256 in wants it
// matches, compared in constant time; whose says whose credential the
// error names.
func credentialFileMatches(path, whose string, wants ...[]byte) (int, error) {
	if path == "" {
		return -1, fmt.Errorf("%w: --credential FILE is required", ErrAdminCredential)
	}
	b, err := secrets.ReadFile("credential file", path)
	if err != nil {
		return -1, fmt.Errorf("%w: %w", ErrAdminCredential, err)
	}
	for i, want := range wants {
		if adminCredentialMatches(want, string(b)) {
			return i, nil
		}
	}
	return -1, fmt.Errorf("%w: the credential in %s is not %s", ErrAdminCredential, path, whose)
}

// parseCredentialSHA256 reads a configured credential hash (64 hex digits).
func parseCredentialSHA256(field, h string) ([]byte, error) {
	b, err := hex.DecodeString(trim0x(h))
	if err != nil || len(b) != sha256.Size {
		return nil, fmt.Errorf("%s must be 64 hex digits (the SHA-256 of the credential)", field)
	}
	return b, nil
}

// openStoppedSignerLog opens the signer's embedded log for writing. It
// creates none: a missing log is a wrong data directory or a signer that
// never ran. A running signer holds the log's writer lock.
func openStoppedSignerLog(ctx context.Context, s *signerSetup) (*embeddedlog.Log, error) {
	dir := s.logDir()
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, &noDataError{what: "signer log in", path: dir, run: "the signer " + string(s.protocol.Self), err: err}
	}
	lg, err := embeddedlog.Open(dir, embeddedlog.WithContext(ctx), embeddedlog.WithLogger(slog.Default()))
	if errors.Is(err, embeddedlog.ErrLocked) {
		return nil, fmt.Errorf("%w: signer %s (or another bridgelog command) has its log open: stop the signer first; admin actions work on a stopped signer",
			err, s.protocol.Self)
	}
	if err != nil {
		return nil, fmt.Errorf("open the signer's log %s: %w", dir, err)
	}
	return lg, nil
}

// errOffline is the ledger of an offline admin action: nothing can be
// proposed or signed without a view of the ledger.
var errOffline = errors.New("offline: no ledger")

func offlineEnv(now time.Time) twophase.Env {
	return twophase.Env{Now: now,
		View:   func() (twophase.LedgerView, error) { return twophase.LedgerView{}, errOffline },
		Payout: func(twophase.Hash) (twophase.PayoutStatus, error) { return twophase.PayoutStatus{}, errOffline },
	}
}

// adminFacts keeps, of what an offline action decided, the action itself:
// its audit fact and the request it makes (or the refusal of it). What
// the protocol decides next, a round for the event that became active for
// instance, is left to the running signer: recorded offline, the round's
// timeout and the event's deadline would run from now, and a signer
// started later would find the round expired, or the event past its
// deadline and abandoned again at its first tick. Leaving out a decision
// that was neither recorded nor sent is what a crash before the append
// does, which the protocol is built to survive.
func adminFacts(facts []twophase.Fact) []twophase.Fact {
	var out []twophase.Fact
	for _, f := range facts {
		switch f.(type) {
		case twophase.AdminReset, twophase.AdminReinjected, twophase.EventRequested, twophase.EventRefused,
			twophase.Refused, twophase.RefusalSigned:
			// A verdict of Refused follows from the request and the
			// policy alone, as does this member's signature of it.
			out = append(out, f)
		}
	}
	return out
}

// checkReinjected refuses a mistyped request before anything is recorded.
func checkReinjected(ev twophase.SigningEvent, rules twophase.LedgerRules) error {
	switch {
	case ev.Stream == "" || len(ev.Stream) > twophase.MaxStreamBytes:
		return fmt.Errorf("%w: --stream must be 1..%d bytes", twophase.ErrAdmin, twophase.MaxStreamBytes)
	case len(ev.Destination) > twophase.MaxDestinationBytes:
		return fmt.Errorf("%w: --destination is at most %d bytes", twophase.ErrAdmin, twophase.MaxDestinationBytes)
	case len(ev.Source.Chain) > twophase.MaxChainBytes:
		return fmt.Errorf("%w: --source-chain is at most %d bytes", twophase.ErrAdmin, twophase.MaxChainBytes)
	case ev.Amount == 0:
		return fmt.Errorf("%w: --amount must be positive", twophase.ErrAdmin)
	}
	if _, err := rules.ScriptFor(ev.Destination); err != nil {
		return fmt.Errorf("%w: --destination: %w", twophase.ErrAdmin, err)
	}
	return nil
}

// ErrReinjectRefused: the signer recorded the request and refused it
// (its nonce belongs to another event), or recorded it Refused (the
// policy or the ledger's rules forbid it).
var ErrReinjectRefused = errors.New("re-injected event refused by the signer")

// print writes one line per recorded fact, and says so when a re-injected
// event was already known.
func (r *adminResult) print(w io.Writer) error {
	requested := false
	var refused error
	for _, f := range r.facts {
		switch f := f.(type) {
		case twophase.AdminReset:
			fmt.Fprintf(w, "recorded %s event_id=%s epoch=%d operator=%q reason=%q\n", f.EventType(), f.EventID.Hex(), f.Epoch, f.Operator, f.Reason)
		case twophase.AdminReinjected:
			e, _ := r.state.Event(f.ID)
			fmt.Fprintf(w, "recorded %s event_id=%s epoch=%d operator=%q reason=%q\n", f.EventType(), f.ID.Hex(), e.Epoch, f.Operator, f.Reason)
		case twophase.EventRequested:
			requested = true
			fmt.Fprintf(w, "recorded %s event_id=%s stream=%q nonce=%d destination=%q amount=%d via=%s\n",
				f.EventType(), f.ID.Hex(), f.Event.Stream, f.Event.Nonce, f.Event.Destination, f.Event.Amount, f.Via)
		case twophase.EventRefused:
			requested = true
			refused = fmt.Errorf("%w: %s: %s", ErrReinjectRefused, f.Reason, f.Detail)
			fmt.Fprintf(w, "recorded %s event_id=%s reason=%s detail=%q\n", f.EventType(), f.ID.Hex(), f.Reason, f.Detail)
		case twophase.Refused:
			refused = fmt.Errorf("%w: %s: %s", ErrReinjectRefused, f.Reason, f.Detail)
			fmt.Fprintf(w, "recorded %s event_id=%s reason=%s detail=%q\n", f.EventType(), f.EventID.Hex(), f.Reason, f.Detail)
		}
	}
	for _, f := range r.facts {
		if f, ok := f.(twophase.AdminReinjected); ok && !requested {
			if _, known := r.state.Event(f.ID); known {
				fmt.Fprintf(w, "event %s was already requested: no new request recorded\n", f.ID.Hex())
			} else {
				fmt.Fprintf(w, "event %s: stream %q is past nonce %d (completed): no new request recorded\n", f.ID.Hex(), f.Event.Stream, f.Event.Nonce)
			}
		}
	}
	return refused
}
