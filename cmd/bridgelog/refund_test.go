package main

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
)

// simnetRecipient is a well-formed simnet address (the token checks its
// form; the signers refuse what they cannot pay).
const simnetRecipient = "kaspasim:qz0s9f7vzg5dpm0q4s2fgcse3ghv5uahyd0ldcfl5vy3ar7t6q05lnwr2mtkx"

// burnToKaspa burns amount of user i toward Kaspa and returns the burn's
// log.
func (tb *testBridge) burnToKaspa(i int, amount *big.Int) domain.LogRef {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	k, _ := tb.user(i)
	tx, err := tb.users.BurnToKaspa(ctx, devchain.DevKey(k), amount, simnetRecipient)
	if err != nil {
		tb.t.Fatal(err)
	}
	rc, err := tb.chain.WaitMined(ctx, tx.Hash())
	if err != nil {
		tb.t.Fatal(err)
	}
	for _, l := range rc.Logs {
		if _, err := contracts.NewBridgeToken().UnpackWithdrawalToKaspaEvent(l); err == nil {
			return domain.LogRef{ChainID: devchain.ChainID, TxHash: domain.Hash32(rc.TxHash), LogIndex: uint32(l.Index)}
		}
	}
	tb.t.Fatal("the burn emitted no WithdrawalToKaspa")
	return domain.LogRef{}
}

// refusal is the fixture group's certificate of burn, signed by members.
func refusal(group handlers.RefusalGroup, token domain.Address, burn domain.LogRef, burner common.Address, amount *big.Int,
	members ...string) domain.RefusalCertificate {
	c := domain.RefusalCertificate{GroupID: group.ID, Burn: burn, Token: token, Burner: domain.Address(burner),
		Amount: mustAmount(amount), Reason: "policy_denied_destination"}
	for _, m := range members {
		c.Signatures = append(c.Signatures, domain.MemberSignature{Member: m, Signature: ed25519.Sign(fixtureIdentity(m), c.SigningBytes())})
	}
	return c
}

func writeCertJSON(t *testing.T, path string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runRefundCmd runs `bridgelog refund` on the test bridge's data.
func runRefundCmd(t *testing.T, tb *testBridge, cfgPath, certPath string) (string, error) {
	t.Helper()
	var out strings.Builder
	rootCmd.SetOut(&out)
	rootCmd.SetArgs([]string{"refund", "--data", tb.dir, "--config", cfgPath, "--certificate", certPath})
	defer rootCmd.SetArgs(nil)
	err := rootCmd.ExecuteContext(context.Background())
	return out.String(), err
}

func refundCounts(t *testing.T, tb *testBridge) map[string]int64 {
	t.Helper()
	n, err := tb.b.reader.RefundCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRefundCertificateEndToEnd: `bridgelog refund --certificate` beside a
// running relay on the dev chain leaves the certificate in the relay's
// inbox; the relay verifies it and mints the burn back once (a tampered
// copy is refused, nothing sent). A second copy handed over while the
// relay is stopped changes nothing. A certificate appended to a stopped
// relay's log, of a burn refunded on chain already (the token's guard),
// completes as already processed, minting nothing more.
func TestRefundCertificateEndToEnd(t *testing.T) {
	f := newSignerFixture(t, 3, 2)
	groupPath := f.write(t)
	tb := newTestBridge(t, 50*time.Millisecond, 0, func(c *relayConfig) { c.Signers = &relaySigners{Group: groupPath} })
	cfgPath := filepath.Join(tb.dir, "relay.json")
	if err := writeRelayConfig(cfgPath, tb.cfg); err != nil {
		t.Fatal(err)
	}
	group := tb.b.relay.Refunds.Group
	_, burner := tb.user(0)
	tb.lock(0, ether(1000))
	tb.until("the deposit minted", 30*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	burn := tb.burnToKaspa(0, ether(300))
	tb.assertBalance(0, ether(700))

	good := refusal(group, tb.cfg.Token, burn, burner, ether(300), "s1", "s3")
	goodPath := writeCertJSON(t, filepath.Join(t.TempDir(), "good.json"), good)
	tampered := good
	tampered.Amount = mustAmount(ether(900))
	out, err := runRefundCmd(t, tb, cfgPath, writeCertJSON(t, filepath.Join(t.TempDir(), "tampered.json"), tampered))
	if !errors.Is(err, handlers.ErrCertificateRefused) || !strings.Contains(out, "left in") {
		t.Fatalf("refund of a tampered certificate: %v\n%s", err, out)
	}
	if out, err := runRefundCmd(t, tb, cfgPath, goodPath); err != nil || !strings.Contains(out, "a running relay holds the log") {
		t.Fatalf("refund: %v\n%s", err, out)
	}
	tb.until("the refund completed and the tampered copy refused", 30*time.Second, func(projections.BridgeStats) bool {
		n := refundCounts(t, tb)
		return n[projections.RefundCompleted] == 1 && n[projections.RefundRefused] == 1
	})
	tb.assertBalance(0, ether(1000))
	if left, _ := filepath.Glob(filepath.Join(refundInbox(tb.dir), "*")); len(left) != 0 {
		t.Fatalf("inbox still holds %v", left)
	}

	// A second copy, by another quorum, handed over while the relay is
	// stopped: the store has the burn's verdict, nothing is appended.
	tb.close()
	copyPath := writeCertJSON(t, filepath.Join(t.TempDir(), "copy.json"), refusal(group, tb.cfg.Token, burn, burner, ether(300), "s1", "s2"))
	if out, err := runRefundCmd(t, tb, cfgPath, copyPath); err != nil || !strings.Contains(out, "nothing appended") {
		t.Fatalf("refund with the relay stopped: %v\n%s", err, out)
	}
	tb.open()
	if err := tb.b.relay.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	tb.assertBalance(0, ether(1000))
	if s, err := tb.b.reader.Stats(context.Background()); err != nil || s.Gas["refund"].Count != 1 {
		t.Fatalf("refund transactions %+v (%v), want 1", s.Gas["refund"], err)
	}

	refundAlreadyOnChain(t, tb, cfgPath, group, burner)
	assertReplayEqual(t, tb) // the refunds table rebuilds from the log as it was folded live
	tb.close()
	var st strings.Builder
	rootCmd.SetOut(&st)
	rootCmd.SetArgs([]string{"status", "--json=false", "--data", tb.dir})
	defer rootCmd.SetArgs(nil)
	if err := rootCmd.ExecuteContext(context.Background()); err != nil || !strings.Contains(st.String(), "refunds      COMPLETED=2 REFUSED=1") {
		t.Fatalf("status: %v\n%s", err, st.String())
	}
	// The burn's story tells its refund.
	st.Reset()
	rootCmd.SetArgs([]string{"audit", "--data", tb.dir, burn.TxHash.Hex()})
	if err := rootCmd.ExecuteContext(context.Background()); err != nil ||
		!strings.Contains(st.String(), domain.TypeRefundRequested) || !strings.Contains(st.String(), domain.TypeRefundCompleted) {
		t.Fatalf("audit of the burn: %v\n%s", err, st.String())
	}
}

// refundAlreadyOnChain: a certificate appended to a stopped relay's log,
// of a burn the token refunded already (an earlier attempt mined late),
// completes as already processed: the guard reverts "already refunded",
// nothing more is minted and no transaction is sent.
func refundAlreadyOnChain(t *testing.T, tb *testBridge, cfgPath string, group handlers.RefusalGroup, burner common.Address) {
	t.Helper()
	burn2 := tb.burnToKaspa(0, ether(200))
	second := refusal(group, tb.cfg.Token, burn2, burner, ether(200), "s2", "s3")
	tok := contracts.NewBridgeToken()
	auth := bind.NewKeyedTransactor(devchain.DevKey(devRelayer), big.NewInt(devchain.ChainID))
	tx, err := bind.Transact(tok.Instance(tb.chain.Client(), common.Address(tb.cfg.Token)), auth,
		tok.PackRefund(burner, ether(200), second.RefundKey()))
	if err != nil {
		t.Fatal(err)
	}
	tb.mined(tx.Hash())
	tb.assertBalance(0, ether(1000))
	// Handed over while the relay is stopped: appended to its log.
	tb.close()
	if out, err := runRefundCmd(t, tb, cfgPath, writeCertJSON(t, filepath.Join(t.TempDir(), "second.json"), second)); err != nil ||
		!strings.Contains(out, "refund of") {
		t.Fatalf("refund: %v\n%s", err, out)
	}
	tb.open()
	tb.until("the second refund completed", 30*time.Second, func(projections.BridgeStats) bool {
		return refundCounts(t, tb)[projections.RefundCompleted] == 2
	})
	tb.assertBalance(0, ether(1000))
	if s, err := tb.b.reader.Stats(context.Background()); err != nil || s.Gas["refund"].Count != 1 {
		t.Fatalf("refund transactions %+v (%v), want still 1: the guard's verdict completes it without a send", s.Gas["refund"], err)
	}
}

func mustAmount(n *big.Int) domain.Amount {
	a, err := domain.NewAmount(n)
	if err != nil {
		panic(err)
	}
	return a
}
