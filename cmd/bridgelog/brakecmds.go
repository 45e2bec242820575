package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// brakeFlags are what every operator action on a relay needs.
type brakeFlags struct {
	config, operator, reason, credential string
}

func (f *brakeFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.config, "config", "", "the relay config (its admin section names the credentials)")
	fl.StringVar(&f.operator, "operator", "", "who takes the action (recorded; default: the login name)")
	fl.StringVar(&f.reason, "reason", "", "why (recorded)")
	fl.StringVar(&f.credential, "credential", "", "file holding the admin (or, for pause, a pauser) credential (readable by its owner only)")
	for _, name := range []string{"config", "reason", "credential"} {
		_ = c.MarkFlagRequired(name)
	}
}

var (
	pauseFlags, resumeFlags brakeFlags
	holdFlags, releaseFlags struct {
		brakeFlags
		deposit string
	}
)

var pauseCmd = &cobra.Command{
	Use:   "pause --config relay.json --reason TEXT --credential FILE [--operator NAME]",
	Short: "Stop the relay sending anything (mints, claims, anchors, refunds); it goes on indexing and confirming",
	Long: `pause records relay.paused with the operator and the reason on the relay's log. A running
relay stops sending within one poll interval: nothing new is signed or sent, a transaction
already out is watched but not replaced, and indexing, confirming and batching go on. Only
bridgelog resume (with the admin credential) lifts it; every deposit and claim is then sent
once. It takes the admin credential or a pauser credential (admin.pauserCredentialSha256).
When a running relay holds the embedded log, the request is left in its inbox
(DATA/operator/inbox) and the relay records it at its next poll.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runBrake(cmd.Context(), cmd.OutOrStdout(), pauseFlags, handlers.OperatorRequest{Kind: handlers.RequestPause})
	},
}

var resumeCmd = &cobra.Command{
	Use:   "resume --config relay.json --reason TEXT --credential FILE [--operator NAME]",
	Short: "Let a paused relay send again (needs the admin credential)",
	Args:  cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runBrake(cmd.Context(), cmd.OutOrStdout(), resumeFlags, handlers.OperatorRequest{Kind: handlers.RequestResume})
	},
}

var governorCmd = &cobra.Command{
	Use:   "governor",
	Short: "The relay's mint governor: held mints, and an operator's hold or release of one",
	Long: `The governor (the relay config's governor section) holds a deposit's mint when the
deposits of the window (default 24h of the source chain's block time) would pass the limit,
or when the deposit is at least largeSize; a held mint waits, never fails, and is released
when the window allows it or largeDelay (default 24h) after its block has passed. An
operator may release one early or hold one (then only an operator releases it), each
recorded with the operator and the reason.`,
}

var governorStatusCmd = &cobra.Command{
	Use:   "status",
	Short: "Print the held mints and the pause",
	Args:  cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runGovernorStatus(cmd.Context(), cmd.OutOrStdout())
	},
}

var governorReleaseCmd = &cobra.Command{
	Use:   "release --config relay.json --deposit ID --reason TEXT --credential FILE [--operator NAME]",
	Short: "Release a held mint now (needs the admin credential)",
	Args:  cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runBrake(cmd.Context(), cmd.OutOrStdout(), releaseFlags.brakeFlags,
			handlers.OperatorRequest{Kind: handlers.RequestRelease, Deposit: releaseFlags.deposit})
	},
}

var governorHoldCmd = &cobra.Command{
	Use:   "hold --config relay.json --deposit ID --reason TEXT --credential FILE [--operator NAME]",
	Short: "Hold a deposit's mint until an operator releases it (needs the admin credential)",
	Args:  cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runBrake(cmd.Context(), cmd.OutOrStdout(), holdFlags.brakeFlags,
			handlers.OperatorRequest{Kind: handlers.RequestHold, Deposit: holdFlags.deposit})
	},
}

func init() {
	pauseFlags.register(pauseCmd)
	resumeFlags.register(resumeCmd)
	releaseFlags.register(governorReleaseCmd)
	holdFlags.register(governorHoldCmd)
	for _, c := range []struct {
		cmd *cobra.Command
		id  *string
	}{{governorReleaseCmd, &releaseFlags.deposit}, {governorHoldCmd, &holdFlags.deposit}} {
		c.cmd.Flags().StringVar(c.id, "deposit", "", "the deposit id (deposit:evm:CHAIN:TX:INDEX, as status and the console show it)")
		_ = c.cmd.MarkFlagRequired("deposit")
	}
	governorCmd.AddCommand(governorStatusCmd, governorReleaseCmd, governorHoldCmd)
	rootCmd.AddCommand(pauseCmd, resumeCmd, governorCmd)
}

// runBrake checks the credential and the request, then records it: on
// the log, or in a running relay's inbox when it holds the embedded log.
func runBrake(ctx context.Context, stdout io.Writer, f brakeFlags, req handlers.OperatorRequest) error {
	cfg, err := loadRelayConfig(f.config)
	if err != nil {
		return err
	}
	if err := checkBrakeCredential(cfg, f.credential, req.Kind); err != nil {
		return err
	}
	if f.operator == "" {
		f.operator = loginName()
	}
	req.Action = domain.OperatorAction{Operator: f.operator, Reason: f.reason, RequestID: topics.NewID(), At: time.Now().UnixNano()}
	if err := req.Action.Check(); err != nil {
		return err
	}
	if req.Kind == handlers.RequestHold || req.Kind == handlers.RequestRelease {
		if _, err := handlers.ParseDepositID(req.Deposit); err != nil {
			return fmt.Errorf("%w: --deposit %q: %w", handlers.ErrOperatorRequest, req.Deposit, err)
		}
	}
	lg, err := openLog(ctx)
	if errors.Is(err, embeddedlog.ErrLocked) {
		// The running relay checks the request on its own state and
		// records it at its next poll; check it here too, for the exit code.
		if err := checkOnStore(ctx, req); err != nil {
			return err
		}
		path, err := leaveOperatorRequest(req)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "a running relay holds the log: %s request left in %s; the relay records it within one poll interval\n", req.Kind, path)
		return nil
	}
	if err != nil {
		return err
	}
	defer lg.Close()
	ev, err := recordRequest(ctx, lg, req)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recorded %s operator=%q reason=%q%s\n", ev.EventType(), f.operator, f.reason, depositSuffix(req))
	return nil
}

func depositSuffix(req handlers.OperatorRequest) string {
	if req.Deposit == "" {
		return ""
	}
	return " deposit=" + req.Deposit
}

// recordRequest checks req on the relay's state and appends its event. On
// an embedded log the command holds (the relay is stopped) the store is
// caught up before and after, so status shows the action at once; on
// Kafka the running relay's store is read as it is, and the relay folds
// the event.
func recordRequest(ctx context.Context, lg topics.Log, req handlers.OperatorRequest) (domain.Event, error) {
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog()}
	if engineFlags.log != "embedded" {
		st, err := openStoreReader(ctx)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		ev, err := req.Event(ctx, projections.BridgeReader{Store: st})
		if err != nil {
			return nil, err
		}
		_, err = app.Append(ctx, handlers.Cause{}, ev)
		return ev, err
	}
	st, err := openStore(ctx)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	r, err := projections.NewRunner(ctx, lg, st, projectionSet(), runnerOptions()...)
	if err != nil {
		return nil, err
	}
	if _, err := r.CatchUp(ctx); err != nil {
		return nil, err
	}
	ev, err := req.Event(ctx, projections.BridgeReader{Store: st})
	if err != nil {
		return nil, err
	}
	if _, err := app.Append(ctx, handlers.Cause{}, ev); err != nil {
		return nil, err
	}
	_, err = r.CatchUp(ctx)
	return ev, err
}

// checkOnStore checks a hold or release on the running relay's store
// (read only), so a refused one exits non-zero at once.
func checkOnStore(ctx context.Context, req handlers.OperatorRequest) error {
	if req.Kind == handlers.RequestPause || req.Kind == handlers.RequestResume {
		return nil
	}
	st, err := openStoreReader(ctx)
	var nd *noDataError
	if errors.As(err, &nd) {
		_, err := req.Event(ctx, noDeposits{})
		return err
	}
	if err != nil {
		return err
	}
	defer st.Close()
	_, err = req.Event(ctx, projections.BridgeReader{Store: st})
	return err
}

// noDeposits is the state of a relay with no store yet.
type noDeposits struct{}

func (noDeposits) DepositGovernance(context.Context, domain.LogRef) (domain.Status, *domain.MintHold, error) {
	return "", nil, nil
}

// checkBrakeCredential: resume, hold and release need the admin
// credential; pause takes it or a pauser's.
func checkBrakeCredential(cfg relayConfig, path, kind string) error {
	keys, err := cfg.adminKeys()
	if err != nil {
		return err
	}
	if keys.admin == nil && (kind != handlers.RequestPause || len(keys.pausers) == 0) {
		return fmt.Errorf("%w: the relay config sets no admin.credentialSha256, so this relay takes no operator actions", ErrAdminCredential)
	}
	wants, whose := [][]byte{keys.admin}, "this relay's admin credential"
	if kind == handlers.RequestPause {
		wants, whose = append(wants, keys.pausers...), whose+" or a pauser's"
	}
	_, err = credentialFileMatches(path, whose, wants...)
	return err
}

// leaveOperatorRequest writes req into the relay's inbox, whole or not at
// all; names sort in the order asked.
func leaveOperatorRequest(req handlers.OperatorRequest) (string, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	return writeWhole(operatorInbox(engineFlags.data), fmt.Sprintf("%020d-%s-%s.json", req.Action.At, req.Kind, req.Action.RequestID), b)
}

// loginName is the operator recorded when --operator is not given.
func loginName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

// runGovernorStatus prints the pause and every held mint.
func runGovernorStatus(ctx context.Context, w io.Writer) error {
	st, err := openStoreReader(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	r := projections.BridgeReader{Store: st}
	p, err := r.PauseState(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, pauseLine(p))
	holds, err := r.MintHolds(ctx, 1000)
	if err != nil {
		return err
	}
	n := 0
	for _, h := range holds {
		if !h.Standing() {
			continue
		}
		n++
		fmt.Fprintln(w, holdLine(h))
	}
	fmt.Fprintf(w, "held mints: %d\n", n)
	return nil
}

// pauseLine says whether the relay is paused, by whom and why.
func pauseLine(p domain.PauseState) string {
	if !p.Paused {
		return "pause: not paused"
	}
	return fmt.Sprintf("pause: PAUSED since %s by %q: %s", p.Since.Format(time.RFC3339), p.Operator, p.Reason)
}

// holdLine is one held mint.
func holdLine(h projections.MintHoldRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "held %s reason=%s", h.Ref.DepositID(), h.Reason)
	if h.Amount != "" && h.Amount != "0" {
		fmt.Fprintf(&b, " amount=%s", h.Amount)
	}
	if h.Reason == domain.HoldOperator {
		fmt.Fprintf(&b, " by=%q note=%q", h.HeldBy, h.HoldNote)
	} else {
		fmt.Fprintf(&b, " release_at=%s", time.Unix(h.ReleaseAt, 0).UTC().Format(time.RFC3339))
	}
	return b.String()
}
