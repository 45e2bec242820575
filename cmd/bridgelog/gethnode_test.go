package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/evm/gethproc"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// gethDev builds geth (once per machine) and starts a geth --dev node for
// the test, stopped when it ends (its log shown when the test failed).
func gethDev(t *testing.T, ctx context.Context) *gethproc.Dev {
	t.Helper()
	bin, err := gethproc.Build(ctx, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := bin.StartDev(ctx, filepath.Join(t.TempDir(), "geth"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("geth --dev:\n%s", dev.OutputTail(40))
		}
		if err := dev.Stop(); err != nil {
			t.Error(err)
		}
	})
	return dev
}

// transfer sends value from the wallet to `to` and waits until it is mined.
func transfer(t *testing.T, ctx context.Context, cl *ethclient.Client, w evmwallet.TxSigner, tos []common.Address, value *big.Int) {
	t.Helper()
	from := common.Address(w.Address())
	nonce, err := cl.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := cl.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	var sent []common.Hash
	for i, to := range tos {
		tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(gethproc.ChainID), Nonce: nonce + uint64(i),
			GasTipCap: tip, GasFeeCap: feeCap, Gas: 21000, To: &to, Value: value})
		signed, err := w.SignTx(ctx, tx, big.NewInt(gethproc.ChainID))
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.SendTransaction(ctx, signed); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, signed.Hash())
	}
	for _, h := range sent {
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			if r, err := cl.TransactionReceipt(ctx, h); err == nil {
				if r.Status != types.ReceiptStatusSuccessful {
					t.Fatalf("transfer %s failed", h)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("transfer %s not mined in 60 s", h)
			}
		}
	}
}

func writeSecret(t *testing.T, path, s string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestContractsDeployToGethAndRelay deploys the bridge to a real geth
// --dev node with `bridgelog contracts deploy` as an operator does (the
// deployer the node's developer account in its keystore, the relayer a
// keystore wallet of its own), after refusals of bad input that write
// nothing; then a relay process runs against the node over its HTTP RPC
// while users deposit and withdraw, until the chain shows every deposit
// minted once and every withdrawal claimed once, and the relay's log
// and projections show one mint and one claim each.
func TestContractsDeployToGethAndRelay(t *testing.T) {
	const deposits, withdrawals = 4, 4
	started := time.Now()
	bin := testBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dev := gethDev(t, ctx)
	dir := t.TempDir()
	cl, err := ethclient.DialContext(ctx, dev.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	devWallet, err := evmwallet.Open(ctx, evmwallet.Spec{Name: "developer", Address: dev.Account, Keystore: dev.Keystore,
		Passphrase: secrets.Passphrase{File: dev.PassphraseFile}}, evmwallet.Options{})
	if err != nil {
		t.Fatal(err)
	}

	// The relay's wallets (the relayer and a second minter) in a keystore
	// of their own; users with plain keys; all funded by the developer
	// account.
	relayerKeystore := filepath.Join(dir, "relayer-keystore")
	relayerPass := writeSecret(t, filepath.Join(dir, "relayer-passphrase"), "relayer passphrase")
	ks := keystore.NewKeyStore(relayerKeystore, keystore.LightScryptN, keystore.LightScryptP)
	relayer, err := ks.NewAccount("relayer passphrase")
	if err != nil {
		t.Fatal(err)
	}
	minter, err := ks.NewAccount("relayer passphrase")
	if err != nil {
		t.Fatal(err)
	}
	var userKeys []*ecdsa.PrivateKey
	funded := []common.Address{relayer.Address, minter.Address}
	for range 2 {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		userKeys = append(userKeys, k)
		funded = append(funded, crypto.PubkeyToAddress(k.PublicKey))
	}
	transfer(t, ctx, cl, devWallet, funded, new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)))

	out := filepath.Join(dir, "relay.json")
	deployArgs := func(rpc, from, passFile string, extra ...string) []string {
		return append([]string{"contracts", "deploy", "--rpc", rpc, "--from", from, "--keystore", dev.Keystore,
			"--passphrase-file", passFile, "--relayer", relayer.Address.Hex(), "--minter", minter.Address.Hex(), "--confirmations", "2", "--out", out,
			"--timeout", "3s"}, extra...)
	}
	// Bad input: a clear error, and nothing written.
	poor, err := ks.NewAccount("poor")
	if err != nil {
		t.Fatal(err)
	}
	poorPass := writeSecret(t, filepath.Join(dir, "poor-passphrase"), "poor")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unreachable RPC", deployArgs("http://127.0.0.1:1", dev.Account.Hex(), dev.PassphraseFile), "does not answer"},
		{"wrong passphrase", deployArgs(dev.HTTP, dev.Account.Hex(), writeSecret(t, filepath.Join(dir, "wrong"), "wrong")), "wrong passphrase"},
		{"unknown address", deployArgs(dev.HTTP, relayer.Address.Hex(), dev.PassphraseFile), "address not in the keystore"},
		{"insufficient funds", append(deployArgs(dev.HTTP, poor.Address.Hex(), poorPass), "--keystore", relayerKeystore), "insufficient funds"},
		{"signer not answering", []string{"contracts", "deploy", "--rpc", dev.HTTP, "--from", dev.Account.Hex(),
			"--external", "http://127.0.0.1:1", "--out", out, "--timeout", "3s"}, "wallet deployer: external signer"},
	} {
		_, stderr := runCommand(t, bin, 1, c.args...)
		if !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "contracts deploy") {
			t.Errorf("%s: stderr %q, want it to say %q", c.name, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%s: %s written (%v)", c.name, out, err)
		}
	}
	if n, err := cl.PendingNonceAt(ctx, common.Address(dev.Account)); err != nil || n != uint64(len(funded)) {
		t.Fatalf("the developer account sent %d transactions (%v), want the %d funding transfers", n, err, len(funded))
	}

	stdout, stderr := runCommand(t, bin, 0, deployArgs(dev.HTTP, dev.Account.Hex(), dev.PassphraseFile)...)
	t.Logf("contracts deploy:\n%s%s", stdout, stderr)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"key"`) || strings.Contains(string(raw), "passphrase") {
		t.Fatalf("the written config holds a key source:\n%s", raw)
	}
	var cfg relayConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.RPC != dev.HTTP || cfg.ChainID != gethproc.ChainID || cfg.StartBlock == 0 || cfg.Confirmations != 2 ||
		cfg.Execution != nil || cfg.Wallets == nil || cfg.Wallets.Relayer.Address != domain.Address(relayer.Address) ||
		len(cfg.Wallets.Mint) != 1 || cfg.Wallets.Mint[0].Address != domain.Address(minter.Address) {
		t.Fatalf("written config:\n%s", raw)
	}
	if may, err := contracts.HasRelayerRole(ctx, cl, common.Address(cfg.Token), minter.Address); err != nil || !may {
		t.Fatalf("the minter may mint: %v (%v)", may, err)
	}
	for _, a := range []domain.Address{cfg.Distributor, cfg.Token} {
		if code, err := cl.CodeAt(ctx, common.Address(a), nil); err != nil || len(code) == 0 {
			t.Fatalf("no contract at %s (%v)", a, err)
		}
	}
	if !strings.Contains(stdout, common.Address(cfg.Distributor).Hex()) || !strings.Contains(stdout, common.Address(cfg.Token).Hex()) {
		t.Fatalf("deploy printed:\n%s", stdout)
	}
	// A second deploy to the same file is refused: the operator's edits stay.
	if _, stderr := runCommand(t, bin, 1, deployArgs(dev.HTTP, dev.Account.Hex(), dev.PassphraseFile)...); !strings.Contains(stderr, "exists") {
		t.Fatalf("a deploy over an existing config: %s", stderr)
	}

	// The operator names where the wallets' keys are.
	for _, w := range []*evmwallet.Spec{&cfg.Wallets.Relayer, &cfg.Wallets.Mint[0]} {
		w.Keystore, w.Passphrase = relayerKeystore, secrets.Passphrase{File: relayerPass}
	}
	// TODO(keystore relay): the relay reads relayerKey and mintKeys until
	// it unlocks wallets; give it the same accounts' keys as dev keys.
	relayerKey, minterKey := keystoreKey(t, relayerKeystore, relayer.Address), keystoreKey(t, relayerKeystore, minter.Address)
	cfg.DevChain, cfg.RelayerKey, cfg.MintKeys = true, relayerKey, []string{minterKey}
	cfg.BatchMaxWait, cfg.PollInterval, cfg.StuckAfter = "1s", "250ms", "30s"
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if err := writeRelayConfig(out, cfg); err != nil {
		t.Fatal(err)
	}

	data := filepath.Join(dir, "data")
	relayLog := filepath.Join(dir, "relay.log")
	logFile, err := os.Create(relayLog)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	relay := exec.Command(bin, "relay", "--config", out, "--data", data, "--log-level", "info")
	relay.Stdout, relay.Stderr = logFile, logFile
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stopRelay := func() {
		if !stopped {
			stopped = true
			relay.Process.Signal(syscall.SIGTERM)
			relay.Wait()
		}
	}
	defer func() {
		stopRelay()
		if t.Failed() {
			t.Logf("relay log:\n%s", childproc.Tail(relayLog, 60))
		}
	}()

	users := devchain.Users{Backend: cl, Bridge: devchain.Bridge{Distributor: common.Address(cfg.Distributor), Token: common.Address(cfg.Token)}}
	f := devchain.Flows{Users: users, Keys: userKeys, Deposits: deposits, Withdrawals: withdrawals, Poll: 250 * time.Millisecond}
	fctx, fcancel := context.WithTimeout(ctx, 5*time.Minute)
	defer fcancel()
	if err := f.Run(fctx); err != nil {
		t.Fatal(err)
	}
	// The chain is the judge: wait until it shows every withdrawal paid.
	var problems []string
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(time.Second) {
		a, err := devchain.ReadAudit(ctx, users)
		if err != nil {
			t.Fatal(err)
		}
		if problems = a.Problems(f.Total()); len(problems) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("on chain (%s):\n%s", a.Summary(), strings.Join(problems, "\n"))
		}
	}
	stopRelay()
	if relay.ProcessState.ExitCode() != 0 {
		t.Fatalf("the relay exited %v", relay.ProcessState)
	}

	// The relay's log and projections show one mint and one claim each.
	// The relay stopped as soon as the chain showed the last claim: its
	// projections catch up with the log first.
	runCommand(t, bin, 0, "project", "--data", data, "--log-level", "warn")
	lg, err := embeddedlog.Open(filepath.Join(data, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	// Each deposit's mint and each withdrawal's claim was sent once, and
	// each is settled (a verdict may be appended again after a restart or
	// a redelivery: its source key makes the copies one event).
	for _, c := range []struct {
		topic, typ string
		want       int
		once       bool
	}{
		{topics.TopicBridge, domain.TypeMintIntent, deposits, true},
		{topics.TopicClaims, domain.TypeClaimIntent, withdrawals, true},
		{topics.TopicBridge, domain.TypeDepositMinted, deposits, false},
		{topics.TopicBridge, domain.TypeWithdrawalExecuted, withdrawals, false},
	} {
		per := envelopesPerAggregate(t, lg, c.topic, c.typ)
		if len(per) != c.want {
			t.Errorf("%s: %d aggregates on the log, want %d", c.typ, len(per), c.want)
		}
		for id, n := range per {
			if c.once && n != 1 {
				t.Errorf("%s: %d of %s, want one", c.typ, n, id)
			}
		}
	}
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(data, "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := projections.BridgeReader{Store: st}.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if statusCount(s.Deposits, domain.StatusMinted) != deposits || statusCount(s.Withdrawals, domain.StatusExecuted) != withdrawals {
		t.Fatalf("projections: %+v", s)
	}
	t.Logf("deployed, and %d deposits minted and %d withdrawals claimed on geth --dev, in %s", deposits, withdrawals, time.Since(started).Round(time.Second))
}

// keystoreKey is the hex private key of address in a keystore directory
// whose accounts' passphrase is "relayer passphrase".
func keystoreKey(t *testing.T, dir string, address common.Address) string {
	t.Helper()
	ks := keystore.NewKeyStore(dir, keystore.LightScryptN, keystore.LightScryptP)
	a, err := ks.Find(accounts.Account{Address: address})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(a.URL.Path)
	if err != nil {
		t.Fatal(err)
	}
	k, err := keystore.DecryptKey(b, "relayer passphrase")
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(crypto.FromECDSA(k.PrivateKey))
}

// TestContractsDeployToTwoChains: with --execution-rpc the distributor
// goes on the lock chain and the token on the execution chain, and the
// written config's execution section names that chain and the token's
// deployment block as its start.
func TestContractsDeployToTwoChains(t *testing.T) {
	bin := testBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	lockSide, execSide := gethDev(t, ctx), gethDev(t, ctx)
	// Both nodes' developer account is geth's well-known one: a transfer
	// on the execution chain moves its nonce on, so the token's address
	// differs from the distributor's.
	execClient, err := ethclient.DialContext(ctx, execSide.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer execClient.Close()
	execDev, err := evmwallet.Open(ctx, evmwallet.Spec{Name: "developer", Address: execSide.Account, Keystore: execSide.Keystore,
		Passphrase: secrets.Passphrase{File: execSide.PassphraseFile}}, evmwallet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if lockSide.Account != execSide.Account {
		t.Fatalf("developer accounts %s and %s: geth --dev no longer uses its well-known key", lockSide.Account, execSide.Account)
	}
	transfer(t, ctx, execClient, execDev, []common.Address{common.HexToAddress("0x00000000000000000000000000000000000b0b")}, big.NewInt(1))
	out := filepath.Join(t.TempDir(), "relay.json")
	runCommand(t, bin, 0, "contracts", "deploy", "--rpc", lockSide.HTTP, "--execution-rpc", execSide.HTTP,
		"--from", lockSide.Account.Hex(), "--keystore", lockSide.Keystore, "--passphrase-file", lockSide.PassphraseFile,
		"--claimer", "0x00000000000000000000000000000000000c1a11", "--confirmations", "1", "--out", out)
	cfg, err := loadWrittenConfig(out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RPC != lockSide.HTTP || cfg.Execution == nil || cfg.Execution.RPC != execSide.HTTP ||
		cfg.Execution.ChainID != gethproc.ChainID || cfg.Execution.StartBlock == 0 || cfg.Execution.Confirmations != 1 ||
		cfg.Wallets.Relayer.Address != lockSide.Account || len(cfg.Wallets.Claim) != 1 ||
		cfg.Wallets.Claim[0].Address != domain.Address(common.HexToAddress("0x00000000000000000000000000000000000c1a11")) {
		t.Fatalf("written config: %+v, execution %+v", cfg, cfg.Execution)
	}
	lockClient, err := ethclient.DialContext(ctx, lockSide.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer lockClient.Close()
	for _, c := range []struct {
		cl   *ethclient.Client
		addr domain.Address
		code bool
	}{{lockClient, cfg.Distributor, true}, {lockClient, cfg.Token, false}, {execClient, cfg.Token, true}} {
		code, err := c.cl.CodeAt(ctx, common.Address(c.addr), nil)
		if err != nil || (len(code) > 0) != c.code {
			t.Errorf("code at %s: %d bytes (%v), want some: %v", c.addr, len(code), err, c.code)
		}
	}
	// The token's deployment block is on the execution chain.
	r, err := execClient.BlockByNumber(ctx, new(big.Int).SetUint64(cfg.Execution.StartBlock))
	if err != nil || len(r.Transactions()) == 0 {
		t.Fatalf("execution start block %d: %v", cfg.Execution.StartBlock, err)
	}
}

func loadWrittenConfig(path string) (relayConfig, error) {
	var cfg relayConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	return cfg, json.Unmarshal(b, &cfg)
}
