package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kaspanet/kaspad/util"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspadproc"
	"github.com/bridgelog/bridgelog/adapters/kaspa/kaspanode"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
)

// The devnet's signing group: 3 signer processes, any 2 of which sign.
const (
	devnetSigners = 3
	devnetQuorum  = 2
	// devnetGroupOutputs is how many outputs beyond one per payout the
	// faucet funds the group with: Profile A pays one event at a time and
	// a payout's change is too shallow to spend at once, so each payout
	// needs a deep output of its own.
	devnetGroupOutputs = 2
	// devnetGroupOutput is each funding output's amount: ten times the
	// largest payout.
	devnetGroupOutput = 10 * 100_000_000
)

// devnetKaspa is the Kaspa half of a devnet: a simnet node and its miner
// (or a running node), the faucet the miner pays, the signing group's
// processes, the payouts they owe and the burns they refuse.
type devnetKaspa struct {
	dir, dataDir string
	opt          devnetKaspaOptions
	rpc          string

	mu      sync.Mutex       // node and signers: start adds, stop ends
	node    *kaspadproc.Node // nil on a node devnet did not start
	signers []*childproc.Process
	stopped bool

	up       atomic.Bool // start returned without error: the signers serve their endpoints
	lastPoll time.Time
	faucet   *kaspa.Wallet
	group    *devSignerGroup // written by prepare
	// payouts are every burn toward Kaspa the flows send, in order: owed
	// are the ordinary ones' recipients, refused the recipients the
	// group's policy denies, whose burns it refuses and the relay refunds.
	payouts []devchain.KaspaPayout
	owed    []kaspaOwed
	refused []kaspaOwed
	relay   refundCounter // set before start: the relay's refunds projection
}

// refundCounter is the relay's refunds projection, by status.
type refundCounter interface {
	RefundCounts(ctx context.Context) (map[string]int64, error)
}

// kaspaOwed is what one payout's recipient must hold once paid.
type kaspaOwed struct {
	address util.Address
	sompi   uint64
}

// devnetKaspaOptions are the devnet flags of the Kaspa half.
type devnetKaspaOptions struct {
	payouts   int
	refused   int    // burns toward addresses the group's policy denies
	kaspad    string // a running simnet node's RPC address; "": start one
	faucetKey string // with kaspad: the file of a funded simnet key
}

// newDevnetKaspa makes the payouts' and refused burns' recipients (fresh
// simnet keys), the refused ones spread among the others, and the
// faucet; nothing is written or started before prepare and start.
func newDevnetKaspa(dataDir string, opt devnetKaspaOptions) (*devnetKaspa, error) {
	k := &devnetKaspa{dir: filepath.Join(dataDir, "kaspa"), dataDir: dataDir, opt: opt, rpc: opt.kaspad}
	if opt.payouts+opt.refused == 0 {
		return k, nil
	}
	var err error
	if opt.kaspad != "" {
		k.faucet, err = faucetFromFile(opt.faucetKey)
	} else {
		k.faucet, err = kaspa.NewRandomWallet(kaspadproc.Network)
	}
	if err != nil {
		return nil, err
	}
	for i, refused := range devchain.Spread(opt.payouts, opt.refused) {
		r, err := kaspa.NewRandomWallet(kaspadproc.Network)
		if err != nil {
			return nil, err
		}
		amount := devchain.KaspaPayoutAmount(i)
		k.payouts = append(k.payouts, devchain.KaspaPayout{Recipient: r.Address().String(), Amount: amount})
		o := kaspaOwed{address: r.Address(), sompi: new(big.Int).Div(amount, big.NewInt(weiPerSompi)).Uint64()}
		if refused {
			k.refused = append(k.refused, o)
		} else {
			k.owed = append(k.owed, o)
		}
	}
	return k, nil
}

// prepare writes the signing group before anything starts, so that the
// relay config can name it: its policy denies the refused burns'
// recipients, and the address of the node devnet starts is chosen now.
// It returns the relay config's signers section (nil without a Kaspa
// side): the group's config and its members' HTTP endpoints.
func (k *devnetKaspa) prepare(evm signerChain) (*relaySigners, error) {
	if len(k.payouts) == 0 {
		return nil, nil
	}
	if k.opt.kaspad == "" {
		ports, err := childproc.FreeLoopbackPorts(1)
		if err != nil {
			return nil, fmt.Errorf("devnet: a port for kaspad: %w", err)
		}
		k.rpc = "127.0.0.1:" + strconv.Itoa(ports[0])
	}
	dir, err := filepath.Abs(filepath.Join(k.dataDir, "signers"))
	if err != nil {
		return nil, err
	}
	var denied []string
	for _, r := range k.refused {
		denied = append(denied, r.address.String())
	}
	k.group, err = writeDevSignerGroup(devGroupSpec{dir: dir, members: devnetSigners, quorum: devnetQuorum,
		kaspadRPC: []string{k.rpc}, evm: evm, params: devnetSignerParams(), policy: twophase.Policy{DeniedDestinations: denied}})
	if err != nil {
		return nil, err
	}
	s := &relaySigners{Group: k.group.members[0].config}
	for _, m := range k.group.members {
		s.Endpoints = append(s.Endpoints, "http://"+m.http)
	}
	return s, nil
}

// start builds kaspad and kaspaminer on first use (one progress line on
// w), starts the node and its miner, funds the group's multisig address
// from the miner's coins, starts its signer processes (which index the
// EVM chain prepare gave them) and waits until they serve their
// endpoints. What it started, stop stops, also after an error.
func (k *devnetKaspa) start(ctx context.Context, w io.Writer) error {
	if len(k.payouts) == 0 {
		return nil
	}
	if err := os.MkdirAll(k.dir, 0o700); err != nil {
		return err
	}
	if k.opt.kaspad == "" {
		// The key devnet made for the miner's coins, kept as a key file
		// like --kaspa-faucet-key's, never printed.
		faucet := filepath.Join(k.dir, devnetFaucetKey)
		if err := os.WriteFile(faucet, []byte(hex.EncodeToString(k.faucet.Secret())+"\n"), 0o600); err != nil {
			return err
		}
		bins, err := kaspadproc.Build(ctx, w)
		if err != nil {
			return err
		}
		node, err := kaspadproc.NewNode(bins, kaspadproc.Options{Dir: filepath.Join(k.dir, "node"), MineTo: k.faucet.Address(), RPC: k.rpc})
		if err != nil {
			return err
		}
		k.mu.Lock()
		k.node = node
		k.mu.Unlock()
		if err := node.Start(ctx); err != nil {
			return err
		}
	}
	if err := k.fund(ctx, len(k.owed)+devnetGroupOutputs); err != nil {
		return err
	}
	if err := k.startSigners(); err != nil {
		return err
	}
	if err := k.waitSignersServe(ctx); err != nil {
		return err
	}
	k.up.Store(true)
	return nil
}

// devnetFaucetKey is the file in DATA/kaspa holding the key of the
// faucet devnet made (32-byte secret, hex; mode 600).
const devnetFaucetKey = "faucet.key"

// weiPerSompi is the token's WEI_PER_SOMPI: a burn of amount wei pays
// amount / 1e10 sompi.
const weiPerSompi = 10_000_000_000

// faucetFromFile reads a funded simnet key (32-byte secret, hex).
func faucetFromFile(path string) (*kaspa.Wallet, error) {
	if path == "" {
		return nil, errors.New("devnet: --kaspad needs --kaspa-faucet-key FILE, a simnet key with funds on that node, to fund the group")
	}
	b, err := secrets.ReadFile("kaspa faucet key", path)
	if err != nil {
		return nil, err
	}
	secret, err := hex.DecodeString(trim0x(string(b)))
	if err != nil || len(secret) != 32 {
		return nil, fmt.Errorf("kaspa faucet key %s: want a 32-byte secret as 64 hex digits", path)
	}
	return kaspa.NewWallet(kaspadproc.Network, secret)
}

// session opens a short connection to the node.
func (k *devnetKaspa) session(ctx context.Context) (*kaspanode.Session, error) {
	return kaspanode.Open(ctx, k.rpc, 10*time.Second)
}

// fundChunk is the most outputs one funding transaction pays: each
// output of devnetGroupOutput adds about 1,000 to the transaction's
// storage mass, and a standard transaction's mass is at most 100,000.
const fundChunk = 80

// fund pays outputs outputs to the group's address from the faucet's
// mature coins, in transactions of at most fundChunk outputs; the
// signers can spend them once they are minInputDepth deep.
func (k *devnetKaspa) fund(ctx context.Context, outputs int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	used := map[twophase.Outpoint]bool{} // the earlier transactions' inputs, maybe still listed
	for left := outputs; left > 0; left -= fundChunk {
		if err := k.fundOnce(ctx, min(left, fundChunk), used); err != nil {
			return err
		}
	}
	return nil
}

// fundOnce submits one transaction paying outputs outputs to the group,
// from faucet outputs not in used, and adds its inputs to used.
func (k *devnetKaspa) fundOnce(ctx context.Context, outputs int, used map[twophase.Outpoint]bool) error {
	need := uint64(outputs)*devnetGroupOutput + 100_000_000 // and a fee's worth
	pays := make([]kaspa.Payment, outputs)
	for i := range pays {
		pays[i] = kaspa.Payment{To: k.group.rules.Address(), Amount: devnetGroupOutput}
	}
	for attempt := 1; ; attempt++ {
		ins, err := k.faucetInputs(ctx, need, used)
		if err != nil {
			return err
		}
		tx, err := k.faucet.SpendAtFeeRate(ins, pays, 1)
		if err != nil {
			return fmt.Errorf("devnet: fund the group: %w", err)
		}
		s, err := k.session(ctx)
		if err != nil {
			return err
		}
		err = s.Submit(ctx, tx)
		s.Close()
		// A simnet under load reorganises now and then, and a coinbase
		// output that was mature can be immature again: choose again.
		if errors.Is(err, kaspanode.ErrRefused) && attempt < 5 {
			slog.Debug("devnet: funding refused; choosing the faucet's outputs again", "err", err)
			continue
		}
		if err != nil {
			return fmt.Errorf("devnet: fund the group: %w", err)
		}
		for _, in := range ins {
			used[in.Outpoint] = true
		}
		return nil
	}
}

// faucetInputs waits until the faucet holds need sompi in outputs the
// node will let it spend, none of used, and returns them.
func (k *devnetKaspa) faucetInputs(ctx context.Context, need uint64, used map[twophase.Outpoint]bool) ([]twophase.UTXO, error) {
	for {
		s, err := k.session(ctx)
		if err != nil {
			return nil, err
		}
		virtual, verr := s.VirtualDAAScore(ctx)
		utxos, uerr := s.UTXOs(ctx, k.faucet.Address().String())
		s.Close()
		if err := errors.Join(verr, uerr); err != nil {
			return nil, err
		}
		var ins []twophase.UTXO
		var have uint64
		for _, u := range utxos {
			// Past maturity by a margin: a reorganisation of a few blocks
			// leaves it mature.
			if kaspadproc.SpendableSafely(u, virtual) && !used[u.Outpoint] && have < need {
				ins, have = append(ins, u), have+u.Amount
			}
		}
		if have >= need {
			return ins, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("devnet: the faucet %s holds %d spendable sompi of the %d the group needs (is the miner running?): %w",
				k.faucet.Address(), have, need, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// startSigners starts every member's signer process.
func (k *devnetKaspa) startSigners() error {
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	for _, m := range k.group.members {
		k.mu.Lock()
		if k.stopped {
			k.mu.Unlock()
			return errors.New("devnet: stopped")
		}
		p, err := childproc.Start(bin, []string{"signer", "--config", m.config, "--log-level", "info"},
			filepath.Join(m.dir, "signer.out"), nil)
		if err == nil {
			k.signers = append(k.signers, p)
		}
		k.mu.Unlock()
		if err != nil {
			return fmt.Errorf("devnet: start signer %s: %w", m.id, err)
		}
	}
	return nil
}

// kaspaPaid is what the node shows of the payouts.
type kaspaPaid struct {
	confirmed int      // recipients holding exactly what they are owed, deep enough
	problems  []string // recipients holding something else
}

// paid reads every recipient's outputs: a payout is confirmed when its
// recipient holds exactly what it is owed, in one output at least depth
// deep; a refused burn's recipient must hold nothing.
func (k *devnetKaspa) paid(ctx context.Context, depth uint64) (kaspaPaid, error) {
	var out kaspaPaid
	s, err := k.session(ctx)
	if err != nil {
		return out, err
	}
	defer s.Close()
	virtual, err := s.VirtualDAAScore(ctx)
	if err != nil {
		return out, err
	}
	held := map[string][]twophase.UTXO{}
	for _, o := range slices.Concat(k.owed, k.refused) {
		a := o.address.String()
		if held[a], err = s.UTXOs(ctx, a); err != nil {
			return out, err
		}
	}
	for _, o := range k.owed {
		us := held[o.address.String()]
		switch {
		case len(us) == 0:
		case len(us) == 1 && us[0].Amount == o.sompi:
			if us[0].DAAScore+depth <= virtual {
				out.confirmed++
			}
		default:
			var got []uint64
			for _, u := range us {
				got = append(got, u.Amount)
			}
			out.problems = append(out.problems, fmt.Sprintf("%s holds %v sompi, owed %d once", o.address, got, o.sompi))
		}
	}
	for _, o := range k.refused {
		if us := held[o.address.String()]; len(us) > 0 {
			out.problems = append(out.problems, fmt.Sprintf("%s, whose burn the group refuses, holds %d outputs", o.address, len(us)))
		}
	}
	return out, nil
}

// allPaid reports whether every payout is confirmed on the node and the
// relay settled a refund of every refused burn (read at most once a
// second), and shows the counts.
func (k *devnetKaspa) allPaid(ctx context.Context, p *devnetProgress) bool {
	if len(k.payouts) == 0 {
		return true
	}
	if !k.up.Load() || time.Since(k.lastPoll) < time.Second {
		return false
	}
	k.lastPoll = time.Now()
	paid, err := k.paid(ctx, devnetSignerParams().PayoutDepth)
	if err != nil {
		return false // the node may be busy; the next poll asks again
	}
	refunds, err := k.refundsSettled(ctx)
	if err != nil {
		return false // likewise the store
	}
	p.setKaspa(paid.confirmed, len(k.owed), int(refunds[projections.RefundCompleted]), len(k.refused))
	return paid.confirmed == len(k.owed) &&
		refunds[projections.RefundCompleted]+refunds[projections.RefundFailed] >= int64(len(k.refused))
}

// summary stops the signers and prints the Kaspa lines of the summary
// from the node, the first signer's log, the chain (a) and the relay's
// refunds; false unless every payout is confirmed once and every refused
// burn was refused by the group and refunded once.
func (k *devnetKaspa) summary(ctx context.Context, w io.Writer, a devchain.Audit) bool {
	if len(k.payouts) == 0 {
		return true
	}
	if !k.up.Load() {
		fmt.Fprintln(w, "  kaspa                  the Kaspa side never started")
		return false
	}
	paid, err := k.paid(ctx, devnetSignerParams().PayoutDepth)
	if err != nil {
		fmt.Fprintf(w, "  kaspa node             %v\n", err)
		return false
	}
	k.stopSigners()
	// Every member's record: the group's verdicts are a quorum's.
	recs := make([]payoutRecord, len(k.group.members))
	for i, m := range k.group.members {
		var err error
		if recs[i], err = readPayoutRecord(ctx, m.config); err != nil {
			fmt.Fprintf(w, "  kaspa signer log       %v\n", err)
		}
	}
	refunds := k.refundOutcome(ctx, a, recs)
	return printKaspaSummary(w, paid, len(k.owed), refunds, recs[0], k.group.members[0].id)
}

// stopSigners stops the signer processes (SIGINT, then SIGKILL).
func (k *devnetKaspa) stopSigners() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.signers {
		_ = p.Stop(10 * time.Second)
	}
	k.signers = nil
}

// stop stops the signers, then the node and its miner; safe to call
// while start runs (it starts nothing more) and twice.
func (k *devnetKaspa) stop() {
	k.stopSigners()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopped = true
	if k.node != nil {
		_ = k.node.Stop()
	}
}
