package handlers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// txFixture is a manual-block dev chain with the bridge deployed, a
// relayer wallet and an embedded log.
type txFixture struct {
	chain    *devchain.Chain
	bridge   devchain.Bridge
	client   *evmchain.Client
	signer   evmchain.Signer
	log      topics.Log
	app      *Appender
	calls    *evmchain.Calls
	deposits int
}

func newTxFixture(t *testing.T) *txFixture {
	t.Helper()
	ch, err := devchain.Start(devchain.Config{BlockInterval: -1, Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	ctx := context.Background()
	relayer := ch.Keys()[1]
	b, err := ch.Deploy(ctx, ch.Keys()[0], crypto.PubkeyToAddress(relayer.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := evmchain.Dial(ctx, evmchain.Config{URL: ch.URL(), ChainID: devchain.ChainID})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	lg, err := embeddedlog.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	return &txFixture{chain: ch, bridge: b, client: cl, signer: evmchain.Signer{Client: cl, Wallet: evmwallet.NewKeySigner(relayer)},
		log: lg, app: &Appender{Log: lg, Catalog: topics.DefaultCatalog()},
		calls: evmchain.NewCalls(evmchain.Contracts{Distributor: domain.Address(b.Distributor), Token: domain.Address(b.Token)})}
}

// deposit returns a deposit no earlier call of this fixture returned.
func (f *txFixture) deposit() domain.DepositDetected {
	f.deposits++
	return domain.DepositDetected{Ref: domain.LogRef{ChainID: devchain.ChainID, TxHash: domain.Hash32{0xde, byte(f.deposits), byte(f.deposits >> 8)}, LogIndex: 1},
		Amount: domain.AmountFromUint64(12345), Recipient: domain.Address{0xee}}
}

func (f *txFixture) balance(t *testing.T, who domain.Address) int64 {
	t.Helper()
	tok := contracts.NewBridgeToken()
	out, err := f.client.CallView(context.Background(), domain.ContractCall{To: domain.Address(f.bridge.Token), Data: tok.PackBalanceOf(common.Address(who))})
	if err != nil {
		t.Fatal(err)
	}
	v, err := tok.UnpackBalanceOf(out)
	if err != nil {
		t.Fatal(err)
	}
	return v.Int64()
}

// events reads every envelope of a topic, decoded.
func events(t *testing.T, lg topics.Log, topic string) []topics.Envelope {
	t.Helper()
	ctx := context.Background()
	ends, err := lg.EndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var out []topics.Envelope
	for p, end := range ends {
		for off := int64(0); off < end; {
			recs, err := lg.Read(ctx, topic, int32(p), off, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				e, err := topics.DecodeEnvelope(r.Value)
				if err != nil {
					t.Fatal(err)
				}
				e.Payload = append([]byte(nil), e.Payload...)
				out = append(out, e)
				off = r.Offset + 1
			}
			if len(recs) == 0 {
				break
			}
		}
	}
	return out
}

func outcomes(t *testing.T, envs []topics.Envelope) []domain.TxOutcome {
	var out []domain.TxOutcome
	for _, e := range envs {
		if e.Type == domain.TypeMintOutcome {
			var o domain.TxOutcome
			if err := topics.DecodePayload(e.Payload, &o); err != nil {
				t.Fatal(err)
			}
			out = append(out, o)
		}
	}
	return out
}

// unsentIntent signs a mint with the wallet's next nonce and returns its
// intent without sending it: what a crash between the two leaves behind.
func (f *txFixture) unsentIntent(t *testing.T, dep domain.DepositDetected, call domain.ContractCall) domain.TxIntent {
	t.Helper()
	ctx := context.Background()
	_, pending, err := f.signer.WalletNonces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	feeCap, tip, err := f.signer.Fees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hash, raw, err := f.signer.SignCall(ctx, call, pending, 200_000, feeCap, tip)
	if err != nil {
		t.Fatal(err)
	}
	fc, _ := domain.NewAmount(feeCap)
	tc, _ := domain.NewAmount(tip)
	return domain.TxIntent{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), ChainID: devchain.ChainID, From: f.signer.From(),
		Nonce: pending, Gas: 200_000, TxHash: hash, RawTx: raw, GasFeeCap: fc, GasTipCap: tc, Attempt: 1}
}

// driveInBackground drives req and delivers its outcome.
func driveInBackground(t *testing.T, ctx context.Context, d *TxDriver, req TxRequest) <-chan domain.TxOutcome {
	done := make(chan domain.TxOutcome, 1)
	go func() {
		out, err := d.Drive(ctx, req)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	return done
}

// waitForIntents waits until the log holds n mint intents that match.
func (f *txFixture) waitForIntents(t *testing.T, ctx context.Context, n int, what string, match func(domain.TxIntent) bool) {
	t.Helper()
	for {
		got := 0
		for _, e := range events(t, f.log, topics.TopicBridge) {
			var in domain.TxIntent
			if e.Type == domain.TypeMintIntent && topics.DecodePayload(e.Payload, &in) == nil && match(in) {
				got++
			}
		}
		if got >= n {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("no %s sent", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func commitEvery(ctx context.Context, ch *devchain.Chain, d time.Duration) {
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
				ch.Commit()
			}
		}
	}()
}

func TestDriveMintOnceThenSelfHeal(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	d := &TxDriver{Chain: f.signer, Appender: f.app, PollInterval: 20 * time.Millisecond}
	dep := f.deposit()
	req := TxRequest{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), Call: f.calls.Mint(dep)}
	out, err := d.Drive(ctx, req)
	if err != nil || out.Status != domain.TxSucceeded || out.GasUsed == 0 {
		t.Fatalf("first mint: %+v %v", out, err)
	}
	// Minting the same deposit again is refused by the token's guard at
	// estimation: completed as already processed, nothing sent, paid once.
	again, err := d.Drive(ctx, req)
	if err != nil || again.Status != domain.TxAlreadyProcessed || !again.TxHash.IsZero() {
		t.Fatalf("second mint: %+v %v", again, err)
	}
	if got := f.balance(t, dep.Recipient); got != 12345 {
		t.Fatalf("recipient balance %d, want 12345", got)
	}
	if n := len(outcomes(t, events(t, f.log, topics.TopicBridge))); n != 2 {
		t.Fatalf("%d outcome events, want 2", n)
	}
}

func TestDriveReplacesStuckTransaction(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d := &TxDriver{Chain: f.signer, Appender: f.app, PollInterval: 20 * time.Millisecond,
		Policy: domain.SendPolicy{StuckAfter: 150 * time.Millisecond, MaxAttempts: 4}}
	dep := f.deposit()
	done := driveInBackground(t, ctx, d, TxRequest{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), Call: f.calls.Mint(dep)})
	// No blocks until the driver has replaced the first attempt.
	f.waitForIntents(t, ctx, 2, "a replacement", func(domain.TxIntent) bool { return true })
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	out := <-done
	if out.Status != domain.TxSucceeded {
		t.Fatalf("outcome %+v", out)
	}
	outs := outcomes(t, events(t, f.log, topics.TopicBridge))
	replaced := 0
	for _, o := range outs {
		if o.Status == domain.TxReplaced {
			replaced++
		}
	}
	if replaced < 1 || len(outs) != replaced+1 {
		t.Fatalf("outcomes %+v", outs)
	}
	if got := f.balance(t, dep.Recipient); got != 12345 {
		t.Fatalf("balance %d: paid more or less than once", got)
	}
}

func TestDriveReconcilesIntentFromBeforeACrash(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dep := f.deposit()
	call := f.calls.Mint(dep)
	// A previous run signed and recorded the intent, then died before the
	// transaction reached the node.
	open := f.unsentIntent(t, dep, call)
	pending, hash := open.Nonce, open.TxHash
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	d := &TxDriver{Chain: f.signer, Appender: f.app, PollInterval: 20 * time.Millisecond}
	out, err := d.Drive(ctx, TxRequest{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), Call: call, Open: []domain.TxIntent{open}})
	if err != nil || out.Status != domain.TxSucceeded || out.TxHash != hash {
		t.Fatalf("reconcile: %+v %v (want the recorded tx %s)", out, err, hash.Hex())
	}
	confirmed, _, _ := f.signer.WalletNonces(ctx)
	if confirmed != pending+1 {
		t.Fatalf("wallet nonce %d, want %d: a second transaction was sent", confirmed, pending+1)
	}
}

// TestDriveResolvesNonceTooLow: an intent whose nonce another transaction
// of the wallet took is closed as replaced (not retried forever), and the
// next drive sends afresh with a new nonce: paid once.
func TestDriveResolvesNonceTooLow(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	dep := f.deposit()
	call := f.calls.Mint(dep)
	stale := f.unsentIntent(t, dep, call)
	pending, hash := stale.Nonce, stale.TxHash
	// Something else of this wallet takes the nonce first.
	other := f.calls.Mint(domain.DepositDetected{Ref: domain.LogRef{ChainID: devchain.ChainID, TxHash: domain.Hash32{0x77}}, Amount: domain.AmountFromUint64(1), Recipient: domain.Address{1}})
	_, otherRaw, err := f.signer.SignCall(ctx, other, pending, 200_000, stale.GasFeeCap.Big(), stale.GasTipCap.Big())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.signer.SendRaw(ctx, otherRaw); err != nil {
		t.Fatal(err)
	}
	for c, _, _ := f.signer.WalletNonces(ctx); c <= pending; c, _, _ = f.signer.WalletNonces(ctx) {
		time.Sleep(20 * time.Millisecond)
	}
	// The chain edge reports it with the sentinel the driver checks for.
	// The node's pool drops the mined transaction a moment after the block
	// (go-ethereum resets it on the new head in the background): until
	// then the resend is an underpriced replacement of it.
	err = f.signer.SendRaw(ctx, stale.RawTx)
	for deadline := time.Now().Add(5 * time.Second); errors.Is(err, evmchain.ErrUnderpriced) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		err = f.signer.SendRaw(ctx, stale.RawTx)
	}
	if !errors.Is(err, domain.ErrNonceTooLow) {
		t.Fatalf("resending a used nonce: %v, want domain.ErrNonceTooLow", err)
	}
	d := &TxDriver{Chain: f.signer, Appender: f.app, PollInterval: 20 * time.Millisecond}
	out, err := d.Drive(ctx, TxRequest{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), Call: call, Open: []domain.TxIntent{stale}})
	if err != nil || out.Status != domain.TxReplaced || out.TxHash != hash {
		t.Fatalf("stale intent: %+v %v, want replaced", out, err)
	}
	out, err = d.Drive(ctx, TxRequest{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), Call: call})
	if err != nil || out.Status != domain.TxSucceeded || out.Nonce <= pending {
		t.Fatalf("fresh send: %+v %v, want succeeded with a new nonce", out, err)
	}
	if got := f.balance(t, dep.Recipient); got != 12345 {
		t.Fatalf("balance %d: want one mint", got)
	}
}

// TestDriveCancelsWhatItAbandons: a mint stuck past its attempts is
// cancelled with a zero-value transfer at its nonce. The outcome is
// abandoned only because the cancellation took the nonce: nothing was
// minted, nothing can be minted later, and the wallet's next transaction
// is not stuck behind a gap.
func TestDriveCancelsWhatItAbandons(t *testing.T) {
	f := newTxFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d := &TxDriver{Chain: f.signer, Appender: f.app, PollInterval: 20 * time.Millisecond,
		Policy: domain.SendPolicy{StuckAfter: 100 * time.Millisecond, MaxAttempts: 2}}
	dep := f.deposit()
	nonce, _, err := f.signer.WalletNonces(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := driveInBackground(t, ctx, d, TxRequest{Purpose: domain.PurposeMint, Subject: dep.AggregateID(), Call: f.calls.Mint(dep)})
	// No blocks until the driver has given up and sent the cancellation.
	f.waitForIntents(t, ctx, 1, "a cancellation", func(in domain.TxIntent) bool { return in.Cancel })
	commitEvery(ctx, f.chain, 30*time.Millisecond)
	out := <-done
	if out.Status != domain.TxAbandoned || out.Nonce != nonce || out.GasUsed != cancelGas {
		t.Fatalf("outcome %+v: want abandoned by the cancellation (nonce %d, 21000 gas)", out, nonce)
	}
	if got := f.balance(t, dep.Recipient); got != 0 {
		t.Fatalf("balance %d: the abandoned mint was mined", got)
	}
	if c, _, _ := f.signer.WalletNonces(ctx); c != nonce+1 {
		t.Fatalf("wallet nonce %d, want %d: the nonce was not used", c, nonce+1)
	}
	// No gap: the next drive is mined at the next nonce.
	next := f.deposit()
	out, err = d.Drive(ctx, TxRequest{Purpose: domain.PurposeMint, Subject: next.AggregateID(), Call: f.calls.Mint(next)})
	if err != nil || out.Status != domain.TxSucceeded || out.Nonce != nonce+1 {
		t.Fatalf("next send: %+v %v", out, err)
	}
}
