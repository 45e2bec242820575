package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/bridgelog/bridgelog/adapters/childproc"
	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
	"github.com/bridgelog/bridgelog/adapters/secrets"
	"github.com/bridgelog/bridgelog/analytics/chtest"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/topics"
)

// devnetSecrets collects every secret a devnet in data used, from its
// keystore (decrypted with its passphrase), its signing group's key
// files and the dev accounts it funds, and fails unless it found as many
// as the devnet's configs name: a scan that collected nothing cannot
// pass.
func devnetSecrets(t *testing.T, data string, executors, users int) *keyScan {
	t.Helper()
	k := &keyScan{t: t}
	cfg, err := loadRelayConfig(filepath.Join(data, "devnet.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Wallets == nil || !cfg.DevChain {
		t.Fatalf("devnet.json names no keystore wallets or is not marked a dev chain: %+v", cfg)
	}
	pass, err := os.ReadFile(filepath.Join(data, devnetPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	passphrase := strings.TrimSpace(string(pass))
	for _, f := range []string{devnetKeystoreDir, devnetPassphrase} {
		if err := secrets.CheckOwnerOnly(f, filepath.Join(data, f)); err != nil {
			t.Fatal(err)
		}
	}
	k.add("the keystore's passphrase", []byte(passphrase))
	wallets := []walletRole{{"relayer", cfg.Wallets.Relayer}}
	for i, w := range cfg.Wallets.Claim {
		wallets = append(wallets, walletRole{fmt.Sprintf("claim %d", i), w})
	}
	for i, w := range cfg.Wallets.Mint {
		wallets = append(wallets, walletRole{fmt.Sprintf("mint %d", i), w})
	}
	files, err := filepath.Glob(filepath.Join(data, devnetKeystoreDir, "UTC--*"))
	if err != nil {
		t.Fatal(err)
	}
	held := map[domain.Address][]byte{}
	for _, f := range files {
		b, err := secrets.ReadFile("keystore file", f)
		if err != nil {
			t.Fatal(err)
		}
		key, err := keystore.DecryptKey(b, passphrase)
		if err != nil {
			t.Fatalf("decrypt %s with devnet's passphrase: %v", f, err)
		}
		held[domain.Address(key.Address)] = crypto.FromECDSA(key.PrivateKey)
	}
	for _, w := range wallets {
		key, ok := held[w.spec.Address]
		if !ok {
			t.Fatalf("the %s wallet %s is not in devnet's keystore (%d files)", w.role, w.spec.Address.Hex(), len(files))
		}
		k.add("the "+w.role+" wallet's EVM key (keystore)", key)
	}
	if want := 1 + executors; len(held) != want {
		t.Fatalf("devnet's keystore holds %d keys, want the relayer's and %d claim wallets'", len(held), executors)
	}
	// The dev accounts: the deployer, the relay's, the users'.
	k.add("the deployer's EVM key (dev account 0)", crypto.FromECDSA(devchain.DevKey(devAdmin)))
	for i := devRelayer; i < devClaim0+executors+users; i++ {
		k.add(fmt.Sprintf("dev account %d's EVM key", i), crypto.FromECDSA(devchain.DevKey(i)))
	}
	k.addSignerGroup(filepath.Join(data, "signers"))
	if b, err := os.ReadFile(filepath.Join(data, "kaspa", devnetFaucetKey)); err == nil {
		k.add("the Kaspa faucet's key", hexSecret(t, "faucet key", b))
	}
	return k
}

// walletRole is a wallet of the relay config and its role.
type walletRole struct {
	role string
	spec evmwallet.Spec
}

// addSignerGroup adds every member's identity seed and payout secret
// (opened with the group's passphrase when sealed), that passphrase and
// the admin credential of the group in dir, when devnet wrote one.
func (k *keyScan) addSignerGroup(dir string) {
	k.t.Helper()
	configs, err := filepath.Glob(filepath.Join(dir, "s*.json"))
	if err != nil {
		k.t.Fatal(err)
	}
	if len(configs) == 0 {
		return
	}
	cred, err := os.ReadFile(filepath.Join(dir, "admin.credential"))
	if err != nil {
		k.t.Fatal(err)
	}
	k.add("the signers' admin credential", hexSecret(k.t, "admin.credential", cred))
	for _, c := range configs {
		var cfg signerConfig
		b, err := os.ReadFile(c)
		if err != nil {
			k.t.Fatal(err)
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			k.t.Fatalf("%s: %v", c, err)
		}
		pass := cfg.Passphrase
		if pass.File != "" && !filepath.IsAbs(pass.File) {
			pass.File = filepath.Join(dir, pass.File)
		}
		passphrase, err := pass.Read()
		if err != nil && !errors.Is(err, secrets.ErrNoPassphrase) {
			k.t.Fatal(err)
		}
		if err == nil {
			k.add(fmt.Sprintf("signer %s's passphrase", cfg.Self), []byte(passphrase))
		}
		for what, file := range map[string]string{"identity seed": cfg.IdentityKeyFile, "Kaspa payout key": cfg.PayoutKeyFile} {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				k.t.Fatal(err)
			}
			role := fmt.Sprintf("signer %s's %s", cfg.Self, what)
			kind, _, sealed := secrets.Sealed(b)
			if !sealed {
				k.add(role, hexSecret(k.t, file, b))
				continue
			}
			secret, err := secrets.Open(kind, b, passphrase)
			if err != nil {
				k.t.Fatalf("open %s: %v", file, err)
			}
			k.add(role+" (sealed)", secret)
		}
	}
}

// hexSecret decodes a key file's hex.
func hexSecret(t *testing.T, what string, b []byte) []byte {
	t.Helper()
	v, err := hex.DecodeString(trim0x(string(bytes.TrimSpace(b))))
	if err != nil {
		t.Fatalf("%s is not hex: %v", what, err)
	}
	return v
}

// runOutput is a process's standard output and error, kept in files.
type runOutput struct{ stdout, stderr string }

func newRunOutput(t *testing.T, dir, name string) (runOutput, *os.File, *os.File) {
	t.Helper()
	o := runOutput{stdout: filepath.Join(dir, name+".stdout"), stderr: filepath.Join(dir, name+".stderr")}
	out, err := os.Create(o.stdout)
	if err != nil {
		t.Fatal(err)
	}
	errOut, err := os.Create(o.stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close(); errOut.Close() })
	return o, out, errOut
}

func (k *keyScan) scanOutput(o runOutput) {
	k.t.Helper()
	k.scanFile(o.stdout)
	k.scanFile(o.stderr)
}

// TestKeyScanDevnet runs devnets with traffic and searches everything
// they wrote for every key and passphrase they used, in every encoding
// (see TestKeyScanFindsPlantedSecrets), and finds none: a relay process
// reading its wallets from devnet's keystore (its stdout and stderr at
// debug level, its command line and environment, its /metrics and
// console pages, its refusals of wrong wallets, its log record by record
// and as log inspect prints it, every row of its store and of the
// warehouse it is sunk into, every other file in its data directory,
// devnet.json included), then devnet paying Kaspa with its three signer
// processes (devnet's output, every process's command line and
// environment, the signers' output, logs, stores, /metrics and console
// pages, and both logs sunk).
func TestKeyScanDevnet(t *testing.T) {
	srv := chtest.Start(t)
	bin := testBinary(t)
	t.Run("relay", func(t *testing.T) { keyScanRelay(t, srv, bin) })
	t.Run("kaspa", func(t *testing.T) { keyScanKaspa(t, srv, bin) })
}

// keyScanRelay scans a `devnet --chain-only` chain with a relay process
// beside it, driven by `devnet traffic`.
func keyScanRelay(t *testing.T, srv *chtest.Server, bin string) {
	o := operator{t: t, bin: bin, data: dataDir(t)}
	outDir := t.TempDir()
	chain, _, chainLog := startChainProcess(t, bin, o.data, "--executors", "2", "--block-interval", "50ms")
	cfgPath := filepath.Join(o.data, "devnet.json")
	addr := freeAddr(t)
	relayOut, stdout, stderr := newRunOutput(t, outDir, "relay")
	relay := exec.Command(bin, "relay", "--config", cfgPath, "--data", o.data, "--metrics-addr", addr, "--log-level", "debug")
	relay.Stdout, relay.Stderr = stdout, stderr
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	stopRelay := func() { relay.Process.Signal(syscall.SIGTERM); relay.Wait() }
	defer stopRelay()

	var said []string
	said = append(said, runAndKeep(o, "devnet", "traffic", "--config", cfgPath, "--deposits", "5", "--withdrawals", "4",
		"--burst-every", "100ms", "--timeout", "2m")...)
	check := runAndKeep(o, "devnet", "check", "--config", cfgPath, "--deposits", "5", "--withdrawals", "4", "--wait", "2m")
	if !strings.Contains(check[0], "ok: ") {
		t.Fatalf("devnet check:\n%s", check[0])
	}
	said = append(said, check...)
	k := devnetSecrets(t, o.data, 2, maxDevUsers)
	if want := 1 + 1 + 1 + 2 + maxDevUsers; len(k.secrets) != want {
		t.Fatalf("collected %d secrets, want %d: the passphrase, the deployer's, the relayer's, 2 claim wallets', %d users'",
			len(k.secrets), want, maxDevUsers)
	}

	// What an operator lists of devnet's keystore: its wallets' addresses.
	listed, _ := o.run(0, "keys", "list", "--keystore", filepath.Join(o.data, devnetKeystoreDir))
	cfg, err := loadRelayConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range append([]evmwallet.Spec{cfg.Wallets.Relayer}, cfg.Wallets.Claim...) {
		if !strings.Contains(strings.ToLower(listed), strings.ToLower(w.Address.Hex())) {
			t.Fatalf("keys list --keystore does not list %s:\n%s", w.Address.Hex(), listed)
		}
	}
	k.scan("keys list --keystore", []byte(listed))

	// What the running relay serves, and what ps shows of it.
	for _, f := range []string{"cmdline", "environ"} {
		k.scanFile(filepath.Join("/proc", fmt.Sprint(relay.Process.Pid), f))
	}
	if m := k.scanURL("http://" + addr + "/metrics"); !strings.Contains(m, "bridgelog_") {
		t.Fatalf("the relay's /metrics shows no bridgelog metric:\n%s", m)
	}
	k.scanURL("http://" + addr + "/")
	aggregate, tx := devnetWithdrawal(t, o)
	for _, key := range []string{aggregate, tx} {
		k.scanURL("http://" + addr + "/audit?key=" + key)
	}
	stopRelay()
	keyScanRefusals(t, k, o, cfg)
	_ = chain.Process.Kill()

	for i, s := range said {
		k.scan(fmt.Sprintf("devnet traffic and check output %d", i), []byte(s))
	}
	k.scanOutput(relayOut)
	k.scanFile(chainLog)
	if b, _ := os.ReadFile(relayOut.stderr); !bytes.Contains(b, []byte("level=DEBUG")) {
		t.Fatalf("the relay wrote no debug lines:\n%s", b)
	}
	keyScanData(t, k, srv, o)
	t.Logf("searched %d sources (%d bytes) for %d secrets", k.sources, k.scanned, len(k.secrets))
}

// keyScanRefusals starts the relay on o's data with its wallets wrong in
// the ways an operator gets them wrong, and scans what it says: a wrong
// passphrase (itself a secret: a mistyped passphrase is close to the
// right one), plain keys on a chain not marked a dev chain, a plain key
// that does not parse. Each is refused naming the wallet, and no message
// holds a key or passphrase.
func keyScanRefusals(t *testing.T, k *keyScan, o operator, good relayConfig) {
	t.Helper()
	dir := t.TempDir()
	wrongPass := filepath.Join(dir, "wrong.passphrase")
	right, err := os.ReadFile(filepath.Join(o.data, devnetPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.TrimSpace(string(right)) + "x"
	if err := os.WriteFile(wrongPass, []byte(wrong+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	k.add("a wrong passphrase tried", []byte(wrong))
	relayerKey := keyHex(devRelayer)
	for _, c := range []struct {
		name  string
		edit  func(c *relayConfig)
		wants []string
	}{
		{"a wrong passphrase", func(c *relayConfig) {
			w := *c.Wallets
			w.Relayer.Passphrase.File = wrongPass
			c.Wallets = &w
		}, []string{"wallet relayer", "wrong passphrase"}},
		{"plain keys off a dev chain", func(c *relayConfig) {
			c.DevChain, c.Wallets = false, nil
			c.RelayerKey, c.ClaimKeys = relayerKey, []string{keyHex(devClaim0)}
		}, []string{"wallet relayer", "plain", "bridgelog keys import"}},
		{"a plain key that does not parse", func(c *relayConfig) {
			c.Wallets, c.RelayerKey = nil, relayerKey+"0"
		}, []string{"wallet relayer", "not a hex"}},
	} {
		cfg := good
		c.edit(&cfg)
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
		if err := writeRelayConfig(path, cfg); err != nil {
			t.Fatal(err)
		}
		out, errOut := o.run(1, "relay", "--config", path, "--log-level", "debug")
		for _, w := range c.wants {
			if !strings.Contains(errOut, w) {
				t.Errorf("relay with %s: no %q in\n%s", c.name, w, errOut)
			}
		}
		k.scan("relay with "+c.name+": stdout", []byte(out))
		k.scan("relay with "+c.name+": stderr", []byte(errOut))
	}
}

// runAndKeep runs a command of o and returns its stdout and stderr.
func runAndKeep(o operator, args ...string) []string {
	o.t.Helper()
	out, errOut := o.run(0, args...)
	return []string{out, errOut}
}

// keyScanData scans a stopped relay's data directory: its log record by
// record and as `log inspect` decodes it, its store row by row, the
// warehouse it is sunk into, and every other file in it.
func keyScanData(t *testing.T, k *keyScan, srv *chtest.Server, o operator, skip ...string) {
	t.Helper()
	if n := k.scanLog(filepath.Join(o.data, "log")); n < 20 {
		t.Fatalf("the log %s holds %d records: not a run with traffic", o.data, n)
	}
	for _, spec := range topics.Topics() {
		for i, s := range runAndKeep(o, "log", "inspect", "--json", "--topic", spec.Name, "--limit", "1000000") {
			k.scan(fmt.Sprintf("log inspect --topic %s output %d", spec.Name, i), []byte(s))
		}
	}
	if n := k.scanStore(filepath.Join(o.data, "projections.db")); n < 20 {
		t.Fatalf("the store in %s holds %d rows: not a run with traffic", o.data, n)
	}
	dsn := srv.NewDB(t)
	for i, s := range runAndKeep(o, "analytics", "sink", "--clickhouse", dsn) {
		k.scan(fmt.Sprintf("analytics sink's output %d", i), []byte(s))
	}
	if n := k.scanWarehouse(dsn); n < 20 {
		t.Fatalf("the warehouse holds %d rows of %s: the sink wrote nothing", n, o.data)
	}
	k.keyScanSweep(o.data, skip...)
}

// keyScanKaspa scans a devnet run that pays Kaspa through its signer
// processes, reading their /metrics and console pages while they run.
func keyScanKaspa(t *testing.T, srv *chtest.Server, bin string) {
	o := operator{t: t, bin: bin, data: dataDir(t)}
	outDir := t.TempDir()
	const deposits = 4
	devnetOut, stdout, stderr := newRunOutput(t, outDir, "devnet")
	cmd := exec.Command(bin, "devnet", "--data", o.data, "--deposits", fmt.Sprint(deposits), "--withdrawals", "3",
		"--kaspa-payouts", "2", "--timeout", "4m", "--log-level", "debug")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	pages, processes := scrapeSignersUntil(t, o.data, done, devnetOut)
	if len(processes) < 1+devnetSigners {
		t.Fatalf("saw %d processes of the devnet, want it and its signers: %v", len(processes), slices.Collect(maps.Keys(processes)))
	}
	if b, _ := os.ReadFile(devnetOut.stdout); !bytes.Contains(b, []byte("every Kaspa payout confirmed once")) {
		e, _ := os.ReadFile(devnetOut.stderr)
		t.Fatalf("devnet did not pay every Kaspa payout:\n%s\n%s", b, e)
	}
	k := devnetSecrets(t, o.data, 2, deposits)
	if want := 1 + 1 + 1 + 2 + deposits + 1 + 1 + 2*devnetSigners + 1; len(k.secrets) != want {
		t.Fatalf("collected %d secrets, want %d: the keystore's passphrase, the deployer's, the relayer's, 2 claim wallets', %d users', "+
			"the admin credential, the signers' passphrase, %d signers' identity seeds and payout keys, the faucet's",
			len(k.secrets), want, deposits, devnetSigners)
	}
	for url, b := range pages {
		k.scan("GET "+url, b)
	}
	for p, b := range processes {
		k.scan("the command line and environment of "+p, b)
	}
	keyFiles, err := filepath.Glob(filepath.Join(o.data, "signers", "s*", "*.key"))
	if err != nil || len(keyFiles) != 2*devnetSigners {
		t.Fatalf("the signers' key files: %v %v", keyFiles, err)
	}
	listed, _ := o.run(0, append([]string{"keys", "list", "--network", "kaspa-simnet"}, keyFiles...)...)
	k.scan("keys list of the signers' key files", []byte(listed))
	k.scanOutput(devnetOut)
	if b, _ := os.ReadFile(devnetOut.stderr); !bytes.Contains(b, []byte("level=DEBUG")) {
		t.Fatalf("devnet wrote no debug lines:\n%s", b)
	}
	keyScanData(t, k, srv, o)
	for i := 1; i <= devnetSigners; i++ {
		signer := operator{t: t, bin: bin, data: filepath.Join(o.data, "signers", fmt.Sprintf("s%d", i), "data")}
		if n := k.scanLog(filepath.Join(signer.data, "log")); n == 0 {
			t.Fatalf("signer s%d's log is empty", i)
		}
		if n := k.scanStore(filepath.Join(signer.data, "projections.db")); n == 0 {
			t.Fatalf("signer s%d's store is empty", i)
		}
	}
	signer := operator{t: t, bin: bin, data: filepath.Join(o.data, "signers", "s1", "data")}
	dsn := srv.NewDB(t)
	runAndKeep(signer, "analytics", "sink", "--clickhouse", dsn)
	if n := k.scanWarehouse(dsn); n == 0 {
		t.Fatal("signer s1's log sunk no rows")
	}
	t.Logf("searched %d sources (%d bytes) for %d secrets", k.sources, k.scanned, len(k.secrets))
}

// scrapeSignersUntil reads every signer's /metrics and console overview
// of the devnet in data, and the command line and environment of every
// process it runs (what ps shows), again and again until devnet exits
// (done; the test fails unless it exits 0), and returns the last page
// read of each and what it saw of each process.
func scrapeSignersUntil(t *testing.T, data string, done <-chan error, out runOutput) (pages, processes map[string][]byte) {
	t.Helper()
	pages, processes = map[string][]byte{}, map[string][]byte{}
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(300 * time.Millisecond) {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("devnet: %v\nstdout:\n%s\nstderr:\n%s", err, childproc.Tail(out.stdout, 30), childproc.Tail(out.stderr, 60))
			}
			if want := 2 * devnetSigners; len(pages) != want {
				t.Fatalf("read %d of the signers' %d pages while they ran: %v", len(pages), want, slices.Collect(maps.Keys(pages)))
			}
			return pages, processes
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("devnet did not exit in 5 minutes")
		}
		for _, p := range processesUsing(t, data) {
			pid, _, _ := strings.Cut(p, ":")
			cmdline, err1 := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
			environ, err2 := os.ReadFile(filepath.Join("/proc", pid, "environ"))
			if err1 == nil && err2 == nil {
				processes[p] = append(cmdline, environ...)
			}
		}
		configs, _ := filepath.Glob(filepath.Join(data, "signers", "s*.json"))
		for _, c := range configs {
			var cfg signerConfig
			if b, err := os.ReadFile(c); err != nil || json.Unmarshal(b, &cfg) != nil {
				continue
			}
			for _, page := range []string{"/metrics", "/"} {
				url := "http://" + cfg.HTTP + page
				resp, err := client.Get(url)
				if err != nil {
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode == http.StatusOK {
					pages[url] = b
				}
			}
		}
	}
}
