package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/evm/devchain"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/projections"
	"github.com/bridgelog/bridgelog/topics"
)

// brakeCreds are an admin and a pauser credential, each in a file of its
// own, and the relay admin section naming them.
type brakeCreds struct {
	admin, pauser, wrong string
	section              *relayAdmin
}

func newBrakeCreds(t *testing.T) brakeCreds {
	t.Helper()
	dir := t.TempDir()
	write := func(name, secret string) (string, string) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(secret+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(secret))
		return p, hex.EncodeToString(sum[:])
	}
	admin, adminHash := write("admin", "relay-admin-secret")
	pauser, pauserHash := write("pauser", "relay-pauser-secret")
	wrong, _ := write("wrong", "not-a-credential")
	return brakeCreds{admin: admin, pauser: pauser, wrong: wrong,
		section: &relayAdmin{CredentialSHA256: adminHash, PauserCredentialSHA256: []string{pauserHash}}}
}

// runBrakeCmd runs one operator command on the relay's data directory.
// Every flag is given each time: cobra keeps a flag's value between runs.
func runBrakeCmd(t *testing.T, data, cfgPath, cred string, args ...string) (string, error) {
	t.Helper()
	var out strings.Builder
	rootCmd.SetOut(&out)
	rootCmd.SetArgs(append(args, "--data", data, "--config", cfgPath, "--credential", cred, "--operator", "alice"))
	defer rootCmd.SetArgs(nil)
	err := rootCmd.ExecuteContext(context.Background())
	return out.String(), err
}

func writeTestRelayConfig(t *testing.T, tb *testBridge) string {
	t.Helper()
	p := filepath.Join(tb.dir, "relay.json")
	if err := writeRelayConfig(p, tb.cfg); err != nil {
		t.Fatal(err)
	}
	return p
}

func pauseState(t *testing.T, tb *testBridge) domain.PauseState {
	t.Helper()
	s, err := tb.b.reader.PauseState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRelayPauseStopsSendsWhileIndexing: `bridgelog pause` beside a
// running relay stops its mints within a poll while deposits are still
// indexed and confirmed; only the admin credential resumes it, and each
// deposit is then minted exactly once.
func TestRelayPauseStopsSendsWhileIndexing(t *testing.T) {
	creds := newBrakeCreds(t)
	tb := newTestBridge(t, 50*time.Millisecond, 0, func(c *relayConfig) { c.Admin = creds.section })
	cfgPath := writeTestRelayConfig(t, tb)
	tb.lock(0, ether(100))
	tb.until("the first deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})

	if _, err := runBrakeCmd(t, tb.dir, cfgPath, creds.wrong, "pause", "--reason", "drill"); !errors.Is(err, ErrAdminCredential) {
		t.Fatalf("pause with a wrong credential: %v", err)
	}
	out, err := runBrakeCmd(t, tb.dir, cfgPath, creds.pauser, "pause", "--reason", "exploit suspected")
	if err != nil || !strings.Contains(out, "left in") {
		t.Fatalf("pause: %v\n%s", err, out)
	}
	tb.until("the pause recorded", 30*time.Second, func(projections.BridgeStats) bool { return pauseState(t, tb).Paused })
	if p := pauseState(t, tb); p.Operator != "alice" || p.Reason != "exploit suspected" {
		t.Fatalf("pause state %+v", p)
	}
	tb.lock(1, ether(200))
	tb.lock(2, ether(300))
	// Indexing and confirming go on; by the time both deposits are
	// confirmed and the indexer is blocks past them, a mint would be out.
	locked, err := tb.b.client.Tip(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := tb.until("the new deposits confirmed while paused, and the indexer 5 blocks past", 60*time.Second, func(s projections.BridgeStats) bool {
		cur, err := tb.b.reader.Cursor(context.Background(), devchain.ChainID)
		return err == nil && cur.ScannedTo >= locked+tb.cfg.Confirmations+5 && statusCount(s.Deposits, domain.StatusConfirmed) == 2
	})
	if n := statusCount(s.Deposits, domain.StatusMinted); n != 1 {
		t.Fatalf("%d deposits minted while paused, want the 1 from before", n)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintIntent); n != 1 {
		t.Fatalf("%d mint intents, want 1: the paused relay signed a mint", n)
	}
	assertConsoleShows(t, tb, `id="pause">PAUSED`, `data-field="operator">alice<`, `data-field="reason">exploit suspected<`)
	if m := scrape(t, tb.metrics); !strings.Contains(m, "bridgelog_relay_paused 1") {
		t.Fatalf("metrics do not show the pause:\n%s", grepLines(m, "relay_paused"))
	}

	if _, err := runBrakeCmd(t, tb.dir, cfgPath, creds.pauser, "resume", "--reason", "a pauser cannot resume"); !errors.Is(err, ErrAdminCredential) {
		t.Fatalf("resume with the pauser credential: %v", err)
	}
	if out, err := runBrakeCmd(t, tb.dir, cfgPath, creds.admin, "resume", "--reason", "patched"); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	tb.until("every deposit minted after the resume", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 3
	})
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintIntent); n != 3 {
		t.Fatalf("%d mint intents, want one per deposit", n)
	}
	assertChainPaidOnce(t, tb.users, 3, 0)
	if m := scrape(t, tb.metrics); !strings.Contains(m, "bridgelog_relay_paused 0") {
		t.Fatalf("metrics still show the pause:\n%s", grepLines(m, "relay_paused"))
	}
}

// assertConsoleShows: the relay console's overview holds every want.
func assertConsoleShows(t *testing.T, tb *testBridge, wants ...string) {
	t.Helper()
	w := httptest.NewRecorder()
	mux := http.NewServeMux()
	(&relayConsole{log: tb.log, store: tb.store, logger: quietLogger()}).routes(mux)
	mux.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	for _, want := range wants {
		if !strings.Contains(w.Body.String(), want) {
			t.Fatalf("the console lacks %q:\n%s", want, w.Body.String())
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// heldRefs are the standing holds by reason.
func heldRefs(t *testing.T, tb *testBridge) map[string][]domain.LogRef {
	t.Helper()
	rows, err := tb.b.reader.MintHolds(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]domain.LogRef{}
	for _, r := range rows {
		if r.Standing() {
			out[r.Reason] = append(out[r.Reason], r.Ref)
		}
	}
	return out
}

// TestGovernorHoldsThenMintsOnceAfterRelease: with a 150-token window
// limit and a 1000-token large size, the second 100-token deposit is held
// over the limit and a 2000-token one as large; both are minted once,
// only after an operator's release. Releases of an unknown or minted
// deposit are refused.
func TestGovernorHoldsThenMintsOnceAfterRelease(t *testing.T) {
	creds := newBrakeCreds(t)
	tb := newTestBridge(t, 50*time.Millisecond, 0, func(c *relayConfig) {
		c.Admin = creds.section
		c.Governor = &relayGovernor{Limit: ether(150_000).String(), LargeSize: ether(1_000_000).String()}
	})
	cfgPath := writeTestRelayConfig(t, tb)
	tb.lock(0, ether(100_000))
	tb.until("the first deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 1
	})
	tb.lock(1, ether(100_000))
	tb.lock(2, ether(2_000_000))
	tb.until("two mints held", 60*time.Second, func(projections.BridgeStats) bool {
		h := heldRefs(t, tb)
		return len(h[domain.HoldOverLimit]) == 1 && len(h[domain.HoldLarge]) == 1
	})
	held := heldRefs(t, tb)
	over, large := held[domain.HoldOverLimit][0], held[domain.HoldLarge][0]
	assertConsoleShows(t, tb, `data-deposit="`+over.DepositID()+`"`, `<td>large</td>`)
	if m := scrape(t, tb.metrics); !strings.Contains(m, "bridgelog_mints_held 2") {
		t.Fatalf("metrics do not show the holds:\n%s", grepLines(m, "mints_held"))
	}

	// Bad releases: unknown, already minted, no credential.
	unknown := domain.LogRef{ChainID: over.ChainID, TxHash: domain.Hash32{1}, LogIndex: 7}.DepositID()
	if _, err := runBrakeCmd(t, tb.dir, cfgPath, creds.admin, "governor", "release", "--deposit", unknown, "--reason", "r"); !errors.Is(err, domain.ErrUnknownDeposit) {
		t.Fatalf("release of an unknown deposit: %v", err)
	}
	minted := mintedRef(t, tb)
	if _, err := runBrakeCmd(t, tb.dir, cfgPath, creds.admin, "governor", "release", "--deposit", minted, "--reason", "r"); !errors.Is(err, domain.ErrDepositFinal) {
		t.Fatalf("release of a minted deposit: %v", err)
	}
	if _, err := runBrakeCmd(t, tb.dir, cfgPath, creds.pauser, "governor", "release", "--deposit", over.DepositID(), "--reason", "r"); !errors.Is(err, ErrAdminCredential) {
		t.Fatalf("release with the pauser credential: %v", err)
	}

	if out, err := runBrakeCmd(t, tb.dir, cfgPath, creds.admin, "governor", "release", "--deposit", over.DepositID(), "--reason", "known customer"); err != nil {
		t.Fatalf("release: %v\n%s", err, out)
	}
	tb.until("the released deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 2
	})
	if h := heldRefs(t, tb); len(h[domain.HoldLarge]) != 1 || len(h[domain.HoldOverLimit]) != 0 {
		t.Fatalf("holds after one release: %v", h)
	}
	// An operator's hold on the large deposit, then its release.
	if out, err := runBrakeCmd(t, tb.dir, cfgPath, creds.admin, "governor", "hold", "--deposit", large.DepositID(), "--reason", "call the sender"); err != nil {
		t.Fatalf("hold: %v\n%s", err, out)
	}
	tb.until("the operator's hold recorded", 30*time.Second, func(projections.BridgeStats) bool {
		return len(heldRefs(t, tb)[domain.HoldOperator]) == 1
	})
	if out, err := runBrakeCmd(t, tb.dir, cfgPath, creds.admin, "governor", "release", "--deposit", large.DepositID(), "--reason", "sender verified"); err != nil {
		t.Fatalf("release: %v\n%s", err, out)
	}
	tb.until("every deposit minted", 60*time.Second, func(s projections.BridgeStats) bool {
		return statusCount(s.Deposits, domain.StatusMinted) == 3
	})
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintIntent); n != 3 {
		t.Fatalf("%d mint intents, want one per deposit", n)
	}
	if n := countEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeMintReleased); n != 2 {
		t.Fatalf("%d releases recorded, want 2", n)
	}
	assertChainPaidOnce(t, tb.users, 3, 0)
}

// mintedRef is the id of a minted deposit.
func mintedRef(t *testing.T, tb *testBridge) string {
	t.Helper()
	for _, env := range logEnvelopes(t, tb.log, topics.TopicBridge, domain.TypeDepositMinted) {
		return env.AggregateID
	}
	t.Fatal("no deposit minted")
	return ""
}

// TestBrakeCommandsRefuseBadInput: a governor with a zero or negative
// limit does not load; pause without a credential, with none configured,
// or without a reason is refused; a hold of a deposit the log does not
// have is refused; a pause and resume on a stopped relay's log are
// recorded with the operator and the reason.
func TestBrakeCommandsRefuseBadInput(t *testing.T) {
	creds := newBrakeCreds(t)
	dir := t.TempDir()
	base := relayConfig{RPC: "http://127.0.0.1:1", Distributor: domain.Address{1}, Token: domain.Address{2}, DevChain: true,
		RelayerKey: keyHex(devRelayer)}
	write := func(name string, c relayConfig) string {
		p := filepath.Join(dir, name)
		if err := writeRelayConfig(p, c); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, limit := range []string{"0", "-5", "", "ten"} {
		c := base
		c.Governor = &relayGovernor{Limit: limit}
		if _, err := loadRelayConfig(write("gov.json", c)); !errors.Is(err, domain.ErrGovernorConfig) {
			t.Fatalf("governor limit %q: %v, want ErrGovernorConfig", limit, err)
		}
	}
	c := base
	c.Governor = &relayGovernor{Limit: "1", Window: "-1h"}
	if _, err := loadRelayConfig(write("gov.json", c)); !errors.Is(err, domain.ErrGovernorConfig) {
		t.Fatalf("negative window: %v", err)
	}

	data := filepath.Join(dir, "data")
	noAdmin := write("noadmin.json", base)
	if _, err := runBrakeCmd(t, data, noAdmin, creds.admin, "pause", "--reason", "x"); !errors.Is(err, ErrAdminCredential) {
		t.Fatalf("pause on a relay with no admin section: %v", err)
	}
	c = base
	c.Admin = creds.section
	cfgPath := write("relay.json", c)
	if _, err := runBrakeCmd(t, data, cfgPath, "", "pause", "--reason", "x"); !errors.Is(err, ErrAdminCredential) {
		t.Fatalf("pause without a credential: %v", err)
	}
	if _, err := runBrakeCmd(t, data, cfgPath, creds.admin, "pause", "--reason", ""); !errors.Is(err, domain.ErrBrakeInput) {
		t.Fatalf("pause without a reason: %v", err)
	}
	dep := domain.LogRef{ChainID: 1337, TxHash: domain.Hash32{9}}.DepositID()
	if _, err := runBrakeCmd(t, data, cfgPath, creds.admin, "governor", "hold", "--deposit", dep, "--reason", "x"); !errors.Is(err, domain.ErrUnknownDeposit) {
		t.Fatalf("hold of an unknown deposit: %v", err)
	}
	if _, err := runBrakeCmd(t, data, cfgPath, creds.admin, "governor", "hold", "--deposit", "0x12", "--reason", "x"); !errors.Is(err, handlers.ErrOperatorRequest) {
		t.Fatalf("hold of a malformed deposit id: %v", err)
	}
	out, err := runBrakeCmd(t, data, cfgPath, creds.admin, "pause", "--reason", "drill")
	if err != nil || !strings.Contains(out, "recorded relay.paused") {
		t.Fatalf("pause of a stopped relay: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"governor", "status"}, {"status"}} {
		var status strings.Builder
		rootCmd.SetOut(&status)
		rootCmd.SetArgs(append(args, "--data", data))
		err = rootCmd.ExecuteContext(context.Background())
		rootCmd.SetArgs(nil)
		if err != nil || !strings.Contains(status.String(), `pause: PAUSED since`) || !strings.Contains(status.String(), `by "alice": drill`) {
			t.Fatalf("%v: %v\n%s", args, err, status.String())
		}
	}
}
