package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet/cleftest"
	"github.com/bridgelog/bridgelog/adapters/evm/gethproc"
	"github.com/bridgelog/bridgelog/adapters/evm/gethproc/gethtest"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/adapters/sqlstore"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// gethDev starts a geth --dev node for the test.
func gethDev(t *testing.T, ctx context.Context) *gethproc.Dev { return gethtest.Dev(t, ctx) }

// gethOperator is an operator at a geth --dev node, with a client.
type gethOperator struct {
	dev *gethproc.Dev
	cl  *ethclient.Client
}

func newGethOperator(t *testing.T, ctx context.Context) *gethOperator {
	t.Helper()
	dev := gethDev(t, ctx)
	cl, err := ethclient.DialContext(ctx, dev.HTTP)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &gethOperator{dev: dev, cl: cl}
}

// fund sends value from the developer account to each of tos, mined.
func (g *gethOperator) fund(t *testing.T, ctx context.Context, tos []common.Address, value *big.Int) {
	t.Helper()
	if err := g.dev.Fund(ctx, value, tos...); err != nil {
		t.Fatal(err)
	}
}

// keystoreWallets are the relay's wallets, as an operator keeps them: a
// relayer and a second minter in a keystore of their own, unlocked by a
// passphrase file.
type keystoreWallets struct {
	dir, passphraseFile string
	relayer, minter     accounts.Account
	ks                  *keystore.KeyStore
}

const walletPassphrase = "relayer passphrase"

func newKeystoreWallets(t *testing.T, dir string) *keystoreWallets {
	t.Helper()
	w := &keystoreWallets{dir: filepath.Join(dir, "relay-keystore"),
		passphraseFile: writeSecret(t, filepath.Join(dir, "relay-passphrase"), walletPassphrase)}
	w.ks = keystore.NewKeyStore(w.dir, keystore.LightScryptN, keystore.LightScryptP)
	for _, a := range []*accounts.Account{&w.relayer, &w.minter} {
		var err error
		if *a, err = w.ks.NewAccount(walletPassphrase); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// name fills in the key sources of the wallets contracts deploy listed
// by address, as the operator does.
func (w *keystoreWallets) name(cfg *relayConfig) {
	for _, s := range []*evmwallet.Spec{&cfg.Wallets.Relayer, &cfg.Wallets.Mint[0]} {
		s.Keystore, s.Passphrase = w.dir, secrets.Passphrase{File: w.passphraseFile}
	}
}

func writeSecret(t *testing.T, path, s string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(s+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func newUserKeys(t *testing.T, n int) (keys []*ecdsa.PrivateKey, addrs []common.Address) {
	t.Helper()
	for range n {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		keys, addrs = append(keys, k), append(addrs, crypto.PubkeyToAddress(k.PublicKey))
	}
	return keys, addrs
}

// TestContractsDeployToGethAndRelay deploys the bridge to a real geth
// --dev node with `bridgelog contracts deploy` as an operator does (the
// deployer the node's developer account in its keystore, the relay's
// wallets keystore accounts of their own), after refusals of bad input
// that write nothing and send nothing; then a relay process runs against
// the node over its HTTP RPC while users deposit and withdraw, until the
// chain shows every deposit minted once and every withdrawal claimed
// once, and the relay's log and projections show one mint and one claim
// each.
func TestContractsDeployToGethAndRelay(t *testing.T) {
	const deposits, withdrawals = 4, 4
	started := time.Now()
	bin := testBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	g := newGethOperator(t, ctx)
	dir := t.TempDir()
	wallets := newKeystoreWallets(t, dir)
	userKeys, users := newUserKeys(t, 2)
	funded := append([]common.Address{wallets.relayer.Address, wallets.minter.Address}, users...)
	g.fund(t, ctx, funded, new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18)))

	out := filepath.Join(dir, "relay.json")
	deployArgs := func(rpc, from, passFile string, extra ...string) []string {
		return append([]string{"contracts", "deploy", "--rpc", rpc, "--from", from, "--keystore", g.dev.Keystore,
			"--passphrase-file", passFile, "--relayer", wallets.relayer.Address.Hex(), "--minter", wallets.minter.Address.Hex(),
			"--confirmations", "2", "--out", out, "--timeout", "3s"}, extra...)
	}
	checkDeployRefusals(t, bin, g, wallets, out, deployArgs)
	if n, err := g.cl.PendingNonceAt(ctx, common.Address(g.dev.Account)); err != nil || n != uint64(len(funded)) {
		t.Fatalf("the developer account sent %d transactions (%v), want the %d funding transfers", n, err, len(funded))
	}

	// Rate limits the flows below outgrow: the 0.1 ether of deposits
	// against 0.05 at once refilled over 20 s, the four 0.001-ether claims
	// against 0.0025 refilled over 10 s. Mints and claims wait, then go
	// through once each.
	limits := []string{"--mint-limit", "0.05", "--mint-window", "20s", "--claim-limit", "0.0025", "--claim-window", "10s"}
	stdout, stderr := runCommand(t, bin, 0, deployArgs(g.dev.HTTP, g.dev.Account.Hex(), g.dev.PassphraseFile, limits...)...)
	t.Logf("contracts deploy:\n%s%s", stdout, stderr)
	cfg := checkDeployedToGeth(t, ctx, g, wallets, out, stdout)
	// A second deploy to the same file is refused: the operator's edits stay.
	if _, stderr := runCommand(t, bin, 1, deployArgs(g.dev.HTTP, g.dev.Account.Hex(), g.dev.PassphraseFile)...); !strings.Contains(stderr, "exists") {
		t.Fatalf("a deploy over an existing config: %s", stderr)
	}

	wallets.name(&cfg)
	cfg.BatchMaxWait, cfg.PollInterval, cfg.StuckAfter = "1s", "250ms", "30s"
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if err := writeRelayConfig(out, cfg); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	stopRelay := startRelayProcess(t, bin, out, data)
	bridge := devchain.Users{Backend: g.cl, Bridge: devchain.Bridge{Distributor: common.Address(cfg.Distributor), Token: common.Address(cfg.Token)}}
	flowsUntilPaid(t, ctx, devchain.Flows{Users: bridge, Keys: userKeys, Deposits: deposits, Withdrawals: withdrawals, Poll: 250 * time.Millisecond})
	stopRelay()
	assertSettledOnce(t, bin, data, deposits, withdrawals)
	checkRateLimitedOnGeth(t, bin, g, wallets, cfg, filepath.Join(dir, "relay.log"))
	t.Logf("deployed, and %d deposits minted and %d withdrawals claimed on geth --dev, in %s", deposits, withdrawals, time.Since(started).Round(time.Second))
}

// checkRateLimitedOnGeth: the relay's mints and claims waited on the
// contracts' rate limits (its log shows the waits); contracts
// set-rate-limit shows a limit, refuses a wallet that is not the admin
// and bad input, and changes the limit as the admin.
func checkRateLimitedOnGeth(t *testing.T, bin string, g *gethOperator, w *keystoreWallets, cfg relayConfig, relayLog string) {
	t.Helper()
	raw, err := os.ReadFile(relayLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"step=rate_limit:mint:", "step=rate_limit:claim:"} {
		if !strings.Contains(string(raw), "step failing") || !strings.Contains(string(raw), step) {
			t.Errorf("the relay's log shows no wait on a rate limit (%s)", step)
		}
	}
	token := common.Address(cfg.Token).Hex()
	show := []string{"contracts", "set-rate-limit", "--rpc", g.dev.HTTP, "--contract", token, "--show"}
	if stdout, _ := runCommand(t, bin, 0, show...); !strings.Contains(stdout, "capacity 50000000000000000 wei") {
		t.Fatalf("set-rate-limit --show: %s", stdout)
	}
	set := func(from, keystore, pass, limit string) []string {
		return []string{"contracts", "set-rate-limit", "--rpc", g.dev.HTTP, "--contract", token, "--from", from,
			"--keystore", keystore, "--passphrase-file", pass, "--limit", limit, "--window", "1h", "--timeout", "3s"}
	}
	if _, stderr := runCommand(t, bin, 1, set(w.relayer.Address.Hex(), w.dir, w.passphraseFile, "1")...); !strings.Contains(stderr, "AccessControlUnauthorizedAccount") {
		t.Fatalf("set-rate-limit by the relayer: %s", stderr)
	}
	for _, bad := range []string{"0", "-1", "1e3", "0.0000000000000000001"} {
		if _, stderr := runCommand(t, bin, 1, set(g.dev.Account.Hex(), g.dev.Keystore, g.dev.PassphraseFile, bad)...); !strings.Contains(stderr, "bad rate limit") {
			t.Errorf("set-rate-limit --limit %s: %s", bad, stderr)
		}
	}
	if stdout, _ := runCommand(t, bin, 0, set(g.dev.Account.Hex(), g.dev.Keystore, g.dev.PassphraseFile, "1")...); !strings.Contains(stdout, "capacity 1000000000000000000 wei") {
		t.Fatalf("set-rate-limit by the admin: %s", stdout)
	}
}

// checkDeployRefusals: bad input gets a clear error and exit code 1, and
// nothing is written.
func checkDeployRefusals(t *testing.T, bin string, g *gethOperator, w *keystoreWallets, out string,
	deployArgs func(rpc, from, passFile string, extra ...string) []string) {
	t.Helper()
	poor, err := w.ks.NewAccount(walletPassphrase)
	if err != nil {
		t.Fatal(err)
	}
	// A node that takes connections and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	dev := g.dev
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unreachable RPC", deployArgs("http://127.0.0.1:1", dev.Account.Hex(), dev.PassphraseFile), "does not answer"},
		{"silent RPC", deployArgs("http://"+silent.Addr().String(), dev.Account.Hex(), dev.PassphraseFile), "deadline exceeded"},
		{"wrong passphrase", deployArgs(dev.HTTP, dev.Account.Hex(), w.passphraseFile), "wrong passphrase"},
		{"zero mint limit", deployArgs(dev.HTTP, dev.Account.Hex(), dev.PassphraseFile, "--mint-limit", "0"), `--mint-limit "0": bad rate limit`},
		{"negative claim limit", deployArgs(dev.HTTP, dev.Account.Hex(), dev.PassphraseFile, "--claim-limit", "-1"), `--claim-limit "-1": bad rate limit`},
		{"sub-second window", deployArgs(dev.HTTP, dev.Account.Hex(), dev.PassphraseFile, "--claim-window", "500ms"), "--claim-window 500ms: bad rate limit"},
		{"unknown address", deployArgs(dev.HTTP, w.relayer.Address.Hex(), dev.PassphraseFile), "address not in the keystore"},
		{"insufficient funds", append(deployArgs(dev.HTTP, poor.Address.Hex(), w.passphraseFile), "--keystore", w.dir), "insufficient funds"},
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
}

// checkDeployedToGeth reads the config contracts deploy wrote and checks
// it and the chain: both contracts there, the minter granted its role, no
// key source in the file.
func checkDeployedToGeth(t *testing.T, ctx context.Context, g *gethOperator, w *keystoreWallets, out, stdout string) relayConfig {
	t.Helper()
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"key"`) || strings.Contains(string(raw), "passphrase") || strings.Contains(string(raw), "keystore") {
		t.Fatalf("the written config holds a key source:\n%s", raw)
	}
	var cfg relayConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.RPC != g.dev.HTTP || cfg.ChainID != gethproc.ChainID || cfg.StartBlock == 0 || cfg.Confirmations != 2 ||
		cfg.Execution != nil || cfg.Wallets == nil || cfg.Wallets.Relayer.Address != domain.Address(w.relayer.Address) ||
		len(cfg.Wallets.Mint) != 1 || cfg.Wallets.Mint[0].Address != domain.Address(w.minter.Address) {
		t.Fatalf("written config:\n%s", raw)
	}
	if may, err := contracts.HasRelayerRole(ctx, g.cl, common.Address(cfg.Token), w.minter.Address); err != nil || !may {
		t.Fatalf("the minter may mint: %v (%v)", may, err)
	}
	for _, a := range []domain.Address{cfg.Distributor, cfg.Token} {
		if code, err := g.cl.CodeAt(ctx, common.Address(a), nil); err != nil || len(code) == 0 {
			t.Fatalf("no contract at %s (%v)", a, err)
		}
		if !strings.Contains(stdout, common.Address(a).Hex()) {
			t.Fatalf("deploy did not print %s:\n%s", a, stdout)
		}
	}
	return cfg
}

// startRelayProcess runs `bridgelog relay` as an operator does; the
// returned stop sends it SIGTERM, waits, and requires a clean exit (its
// log is shown when the test failed).
func startRelayProcess(t *testing.T, bin, cfgPath, data string) (stop func()) {
	t.Helper()
	logPath := filepath.Join(filepath.Dir(data), "relay.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	relay := exec.Command(bin, "relay", "--config", cfgPath, "--data", data, "--log-level", "info")
	relay.Stdout, relay.Stderr = logFile, logFile
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			relay.Process.Signal(syscall.SIGTERM)
			relay.Wait()
			logFile.Close()
			if code := relay.ProcessState.ExitCode(); code != 0 {
				t.Errorf("the relay exited %v", relay.ProcessState)
			}
		})
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("relay log:\n%s", childproc.Tail(logPath, 60))
		}
	})
	return stop
}

// flowsUntilPaid sends f and waits until the chain shows every deposit
// minted once and every withdrawal paid once: the chain is the judge.
func flowsUntilPaid(t *testing.T, ctx context.Context, f devchain.Flows) {
	t.Helper()
	fctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if err := f.Run(fctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(time.Second) {
		a, err := devchain.ReadAudit(ctx, f.Users)
		if err != nil {
			t.Fatal(err)
		}
		problems := a.Problems(f.Total())
		if len(problems) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("on chain (%s):\n%s", a.Summary(), strings.Join(problems, "\n"))
		}
	}
}

// assertSettledOnce: the relay's log shows each deposit's mint and each
// withdrawal's claim sent once and settled (besides attempts mined
// deferred: two wallets' mints both estimated against a rate limit's
// bucket that holds one of them), and its projections show them minted
// and executed.
func assertSettledOnce(t *testing.T, bin, data string, deposits, withdrawals int) {
	t.Helper()
	// The relay stopped as soon as the chain showed the last claim: its
	// projections catch up with the log first.
	runCommand(t, bin, 0, "project", "--data", data, "--log-level", "warn")
	lg, err := embeddedlog.Open(filepath.Join(data, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer lg.Close()
	// A verdict may be appended again after a restart or a redelivery:
	// its source key makes the copies one event.
	deferred := deferredOutcomes(t, lg)
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
			if c.once && n-deferred[id] != 1 {
				t.Errorf("%s: %d of %s (%d mined deferred), want one besides the deferred", c.typ, n, id, deferred[id])
			}
		}
	}
	ctx := context.Background()
	st, err := sqlstore.OpenSQLite(ctx, filepath.Join(data, "projections.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := projections.BridgeReader{Store: st}.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if statusCount(s.Deposits, domain.StatusMinted) != int64(deposits) || statusCount(s.Withdrawals, domain.StatusExecuted) != int64(withdrawals) {
		t.Fatalf("projections: %+v", s)
	}
}

// TestContractsDeployToTwoChains: with --execution-rpc the distributor
// goes on the lock chain and the token on the execution chain, and the
// written config's execution section names that chain and the token's
// deployment block as its start.
func TestContractsDeployToTwoChains(t *testing.T) {
	bin := testBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	lockOp, execOp := newGethOperator(t, ctx), newGethOperator(t, ctx)
	lockSide, execSide, lockClient, execClient := lockOp.dev, execOp.dev, lockOp.cl, execOp.cl
	// Both nodes' developer account is geth's well-known one: a transfer
	// on the execution chain moves its nonce on, so the token's address
	// differs from the distributor's.
	if lockSide.Account != execSide.Account {
		t.Fatalf("developer accounts %s and %s: geth --dev no longer uses its well-known key", lockSide.Account, execSide.Account)
	}
	execOp.fund(t, ctx, []common.Address{common.HexToAddress("0x00000000000000000000000000000000000b0b")}, big.NewInt(1))
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

// envelopesPerAggregate counts the envelopes of one type on a topic per
// aggregate id.
// deferredOutcomes counts, per aggregate, the mint and claim outcomes
// mined deferred (a rate limit's bucket emptied between estimate and block).
func deferredOutcomes(t *testing.T, lg topics.Log) map[string]int {
	t.Helper()
	per := map[string]int{}
	for _, c := range [][2]string{{topics.TopicBridge, domain.TypeMintOutcome}, {topics.TopicClaims, domain.TypeClaimOutcome}} {
		for _, e := range logEnvelopes(t, lg, c[0], c[1]) {
			var o domain.TxOutcome
			if err := topics.DecodePayload(e.Payload, &o); err != nil {
				t.Fatal(err)
			}
			if o.Status == domain.TxDeferred {
				per[e.AggregateID]++
			}
		}
	}
	return per
}

func envelopesPerAggregate(t *testing.T, lg topics.Log, topic, typ string) map[string]int {
	t.Helper()
	per := map[string]int{}
	for _, e := range logEnvelopes(t, lg, topic, typ) {
		per[e.AggregateID]++
	}
	return per
}

// TestContractsDeployThroughAnExternalSigner: the deployer may be an
// external signer (the clef protocol), which holds the key the command
// never sees: a signer that refuses sends nothing and writes nothing; one
// that signs deploys both contracts.
func TestContractsDeployThroughAnExternalSigner(t *testing.T) {
	bin := testBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	g := newGethOperator(t, ctx)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	deployer := crypto.PubkeyToAddress(key.PublicKey)
	g.fund(t, ctx, []common.Address{deployer}, big.NewInt(1e18))
	signer, err := cleftest.Start(key)
	if err != nil {
		t.Fatal(err)
	}
	defer signer.Close()
	out := filepath.Join(t.TempDir(), "relay.json")
	args := []string{"contracts", "deploy", "--rpc", g.dev.HTTP, "--from", deployer.Hex(), "--external", signer.URL(),
		"--confirmations", "1", "--out", out, "--timeout", "3s"}

	signer.SetMode(cleftest.Refuse)
	if _, stderr := runCommand(t, bin, 1, args...); !strings.Contains(stderr, "wallet deployer: external signer refused") {
		t.Fatalf("a refusing signer: %s", stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("%s written after a refusal (%v)", out, err)
	}
	if n, err := g.cl.PendingNonceAt(ctx, deployer); err != nil || n != 0 {
		t.Fatalf("the deployer sent %d transactions (%v) through a refusing signer", n, err)
	}

	signer.SetMode(cleftest.Sign)
	runCommand(t, bin, 0, args...)
	cfg, err := loadWrittenConfig(out)
	if err != nil {
		t.Fatal(err)
	}
	if signer.Signed(deployer) != 2 || cfg.Wallets.Relayer.Address != domain.Address(deployer) {
		t.Fatalf("the signer signed %d transactions; config %+v", signer.Signed(deployer), cfg)
	}
	for _, a := range []domain.Address{cfg.Distributor, cfg.Token} {
		if code, err := g.cl.CodeAt(ctx, common.Address(a), nil); err != nil || len(code) == 0 {
			t.Fatalf("no contract at %s (%v)", a, err)
		}
	}
}
