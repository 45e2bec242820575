package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// logEnvelopes reads the envelopes of one type on a topic.
func logEnvelopes(t *testing.T, lg topics.Log, topic, typ string) []topics.Envelope {
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
			if len(recs) == 0 {
				break
			}
			for _, r := range recs {
				e, err := topics.DecodeEnvelope(r.Value)
				if err != nil {
					t.Fatal(err)
				}
				if e.Type == typ {
					e.Payload = append([]byte(nil), e.Payload...)
					out = append(out, e)
				}
				off = r.Offset + 1
			}
		}
	}
	return out
}

// TestRotateMintWallet: keys rotate hands a mint wallet over. The old
// wallet is left with a mint in flight; after the rotation the relay
// sees that mint through from the old wallet, sends new mints from the
// others (the new wallet among them, unlocked from its keystore), then
// records the old wallet retired with its next nonce. Every deposit is
// minted once.
func TestRotateMintWallet(t *testing.T) {
	oldKey, newKey := devchain.DevKey(devClaim0), devchain.DevKey(devClaim0+1)
	oldAddr, newAddr := domain.Address(crypto.PubkeyToAddress(oldKey.PublicKey)), domain.Address(crypto.PubkeyToAddress(newKey.PublicKey))
	// Manual blocks: the mints sent before the rotation stay unmined.
	tb := newTestBridge(t, -1, 2, func(c *relayConfig) { c.ClaimKeys, c.MintKeys = nil, []string{keyHex(devClaim0)} })
	ctx := context.Background()
	lock := func(i int) {
		k := userKey(2, i%testUsers)
		tx, err := tb.users.Lock(ctx, devchain.DevKey(k), ether(int64(10+i)), crypto.PubkeyToAddress(devchain.DevKey(k).PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		tb.mined(tx.Hash())
	}
	lock(0)
	lock(1)
	for range tb.cfg.Confirmations + 1 {
		tb.chain.Commit()
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = tb.b.relay.Round(rctx); close(done) }()
	for deadline := time.Now().Add(30 * time.Second); len(logEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintIntent)) < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the two deposits' mints were not sent")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	if n := intentsOf(t, tb.log, topics.TopicBridge, domain.TypeMintIntent)[oldAddr]; n != 1 {
		t.Fatalf("%d mints in flight from the old wallet, want 1", n)
	}
	tb.close()

	path := configBesideKeystore(t, tb.cfg, newKey)
	if _, err := rotateWallet(path, rotation{role: "mint", old: oldAddr, new: newAddr}); err == nil {
		t.Fatal("rotation to a wallet with no key source accepted")
	}
	if _, err := rotateWallet(path, rotation{role: "mint", old: oldAddr, new: newAddr,
		spec: evmwallet.Spec{Keystore: "keystore"}}); !errors.Is(err, secrets.ErrNoPassphrase) {
		t.Fatalf("rotation to a keystore wallet without a passphrase: %v", err)
	}
	if _, err := rotateWallet(path, rotation{role: "mint", old: domain.Address{1}, new: newAddr,
		spec: specIn("keystore", "pass")}); err == nil {
		t.Fatal("rotation of a wallet the config does not have accepted")
	}
	if _, err := rotateWallet(path, rotation{role: "mint", old: oldAddr, new: newAddr, spec: specIn("keystore", "pass")}); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadRelayConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.Wallets.Mint; len(m) != 2 || !m[0].Retiring || m[1].Address != newAddr || m[1].Keystore != "keystore" || len(cfg.MintKeys) != 0 {
		t.Fatalf("rotated mint wallets %+v (mintKeys %d)", m, len(cfg.MintKeys))
	}
	if _, err := rotateWallet(path, rotation{role: "mint", old: oldAddr, new: domain.Address{2}, spec: specIn("keystore", "pass")}); err == nil {
		t.Fatal("a wallet rotated twice")
	}
	// New deposits while the relay is down: the restarted relay spreads
	// them over its wallets in one round, and the retiring one is not
	// among them.
	for i := 2; i < 6; i++ {
		lock(i)
	}
	for range tb.cfg.Confirmations + 1 {
		tb.chain.Commit()
	}
	tb.cfg = cfg
	tb.open()
	// Blocks again: the old wallet's mint is mined, new deposits mint.
	bctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for bctx.Err() == nil {
			tb.chain.Commit()
			time.Sleep(50 * time.Millisecond)
		}
	}()
	tb.until("6 deposits minted and the old wallet retired", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 6 &&
			len(logEnvelopes(t, tb.log, topics.TopicChain, domain.TypeWalletRetired)) == 1
	})
	sent := intentsOf(t, tb.log, topics.TopicBridge, domain.TypeMintIntent)
	if sent[oldAddr] != 1 || sent[newAddr] == 0 {
		t.Fatalf("mints sent: %d from the old wallet (want only the one before the rotation), %d from the new", sent[oldAddr], sent[newAddr])
	}
	if open, err := tb.b.reader.OpenIntentsFrom(ctx, devchain.ChainID, oldAddr); err != nil || open != 0 {
		t.Fatalf("old wallet has %d open intents (%v)", open, err)
	}
	var retired domain.WalletRetired
	if err := topics.DecodePayload(logEnvelopes(t, tb.log, topics.TopicChain, domain.TypeWalletRetired)[0].Payload, &retired); err != nil {
		t.Fatal(err)
	}
	nonce, err := tb.chain.Client().NonceAt(ctx, common.Address(oldAddr), nil)
	if err != nil || retired.Address != oldAddr || retired.ChainID != devchain.ChainID || retired.NextNonce != nonce {
		t.Fatalf("retired %+v, want %s on %d at nonce %d (%v)", retired, oldAddr, devchain.ChainID, nonce, err)
	}
	assertChainPaidOnce(t, tb.users, 6, 0)
}

// configBesideKeystore writes cfg as relay.json in a directory holding
// key in keystore/ (passphrase in pass) and returns the config's path.
func configBesideKeystore(t *testing.T, cfg relayConfig, key *ecdsa.PrivateKey) string {
	t.Helper()
	dir := t.TempDir()
	ks := keystore.NewKeyStore(filepath.Join(dir, "keystore"), keystore.LightScryptN, keystore.LightScryptP)
	if _, err := ks.ImportECDSA(key, "pw"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pass"), []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "relay.json")
	if err := writeRelayConfig(path, cfg); err != nil {
		t.Fatal(err)
	}
	return path
}

func specIn(keystoreDir, passFile string) evmwallet.Spec {
	return evmwallet.Spec{Keystore: keystoreDir, Passphrase: secrets.Passphrase{File: passFile}}
}

// intentsOf are the intents of one type on a topic, by sender.
func intentsOf(t *testing.T, lg topics.Log, topic, typ string) map[domain.Address]int {
	t.Helper()
	out := map[domain.Address]int{}
	for _, e := range logEnvelopes(t, lg, topic, typ) {
		var in domain.TxIntent
		if err := topics.DecodePayload(e.Payload, &in); err != nil {
			t.Fatal(err)
		}
		out[in.From]++
	}
	return out
}

// TestRotateClaimWallet: the claim wallet is left with a claim in flight
// when it is rotated out. The restarted relay's claim executor (the new
// wallet's) sees that claim through with the old wallet, claims a new
// withdrawal with the new wallet, and the old one is recorded retired.
func TestRotateClaimWallet(t *testing.T) {
	oldKey, newKey := devchain.DevKey(devClaim0), devchain.DevKey(devClaim0+1)
	oldAddr, newAddr := domain.Address(crypto.PubkeyToAddress(oldKey.PublicKey)), domain.Address(crypto.PubkeyToAddress(newKey.PublicKey))
	tb := newTestBridge(t, -1, 2, func(c *relayConfig) { c.ClaimKeys = c.ClaimKeys[:1] })
	ctx := context.Background()
	user := devchain.DevKey(userKey(2, 0))
	userAddr := crypto.PubkeyToAddress(user.PublicKey)
	// Blocks until the anchor of the first batch is recorded: the claim
	// that follows it stays unmined.
	var blocks atomic.Bool
	blocks.Store(true)
	bctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for bctx.Err() == nil {
			if blocks.Load() {
				tb.chain.Commit()
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	tx, err := tb.users.Lock(ctx, user, ether(20), userAddr)
	if err != nil {
		t.Fatal(err)
	}
	tb.mined(tx.Hash())
	tb.until("deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	burn := func() {
		tx, err := tb.users.Burn(ctx, user, ether(4), userAddr)
		if err != nil {
			t.Fatal(err)
		}
		tb.mined(tx.Hash())
	}
	burn()
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = tb.b.run(rctx); close(done) }()
	for deadline := time.Now().Add(60 * time.Second); intentsOf(t, tb.log, topics.TopicClaims, domain.TypeClaimIntent)[oldAddr] == 0; {
		if blocks.Load() && len(logEnvelopes(t, tb.log, topics.TopicBatches, domain.TypeAnchorOutcome)) > 0 {
			blocks.Store(false)
		}
		if time.Now().After(deadline) {
			t.Fatal("no claim sent from the old wallet")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	tb.close()

	path := configBesideKeystore(t, tb.cfg, newKey)
	if _, err := rotateWallet(path, rotation{role: "claim", old: oldAddr, new: newAddr, spec: specIn("keystore", "pass")}); err != nil {
		t.Fatal(err)
	}
	if tb.cfg, err = loadRelayConfig(path); err != nil {
		t.Fatal(err)
	}
	tb.open()
	if len(tb.b.executors) != 1 || tb.b.executors[0].Driver.Chain.From() != newAddr {
		t.Fatalf("claim executors after the rotation: %d, want one with the new wallet", len(tb.b.executors))
	}
	blocks.Store(true)
	burn()
	tb.until("both withdrawals claimed and the old wallet retired", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Withdrawals, domain.StatusExecuted) == 2 &&
			len(logEnvelopes(t, tb.log, topics.TopicChain, domain.TypeWalletRetired)) == 1
	})
	if sent := intentsOf(t, tb.log, topics.TopicClaims, domain.TypeClaimIntent); sent[oldAddr] != 1 || sent[newAddr] != 1 {
		t.Fatalf("claims sent: %d from the old wallet, %d from the new; want one each", sent[oldAddr], sent[newAddr])
	}
	assertChainPaidOnce(t, tb.users, 1, 2)
}
