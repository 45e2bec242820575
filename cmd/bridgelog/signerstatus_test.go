package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/embeddedlog"
	"github.com/bridgelog/bridgelog/adapters/simledger"
	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/handlers"
	"github.com/bridgelog/bridgelog/handlers/signing"
	"github.com/bridgelog/bridgelog/topics"
)

// statusRig runs the protocol states of a group in memory on a
// simulated ledger, delivering every message, and keeps each member's
// facts: enough to give `signer status` a real state and log without
// processes or a Kaspa node. Payouts are never submitted, so committed
// events stay committed.
type statusRig struct {
	t      *testing.T
	now    time.Time
	sim    simledger.Group
	ledger *simledger.Ledger
	params twophase.Params
	states map[twophase.PeerID]*twophase.State
	facts  map[twophase.PeerID][]twophase.Fact
	queue  []statusMsg
}

type statusMsg struct {
	to  twophase.PeerID
	raw []byte
}

func newStatusRig(t *testing.T, n int, profileB bool) *statusRig {
	t.Helper()
	r := &statusRig{t: t, now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), states: map[twophase.PeerID]*twophase.State{},
		facts: map[twophase.PeerID][]twophase.Fact{}}
	r.params = twophase.Params{ProposalTimeout: 2 * time.Second, Tick: 500 * time.Millisecond, MinInputDepth: 20, CoinbaseMaturity: 50,
		PayoutDepth: 5, CompletionTimeout: time.Minute}
	if profileB {
		r.sim = simledger.NewGroup("status", "status", simledger.MemberIDs(n), twophase.ProfileBQuorum(n, 1))
		r.sim.Group.Profile, r.sim.Group.Faults = twophase.ProfileB, 1
		r.params.AnchorStep = 10
	} else {
		r.sim = simledger.NewGroup("status", "status", simledger.MemberIDs(n), n/2+1)
	}
	r.ledger = simledger.New(simledger.Config{DAAPerSecond: 10, StartDAA: 1000, Group: r.sim.Group, Keys: r.sim.Payout}, r.now)
	for i := 0; i < 8; i++ {
		r.ledger.Fund(twophase.Outpoint{TxID: sha256.Sum256([]byte(fmt.Sprint("fund", i))), Index: uint32(i)}, 1_000_000, 100, false)
	}
	for _, id := range r.sim.IDs {
		st, err := twophase.NewState(r.config(id))
		if err != nil {
			t.Fatal(err)
		}
		r.states[id] = st
		r.take(id, st.Start(r.env()))
	}
	return r
}

func (r *statusRig) config(id twophase.PeerID) twophase.Config {
	return r.sim.Config(id, r.params, twophase.Policy{MinChange: 1000})
}

func (r *statusRig) env() twophase.Env {
	return twophase.Env{Now: r.now, View: func() (twophase.LedgerView, error) { return r.ledger.View(0), nil },
		Payout: func(tx twophase.Hash) (twophase.PayoutStatus, error) { return r.ledger.Status(tx, 0), nil }}
}

func (r *statusRig) take(id twophase.PeerID, step twophase.Step) {
	r.facts[id] = append(r.facts[id], step.Facts...)
	for _, o := range step.Out {
		for _, to := range r.sim.IDs {
			if to != id && (o.To == "" || o.To == to) {
				r.queue = append(r.queue, statusMsg{to: to, raw: o.Raw})
			}
		}
	}
}

// request has every member learn ev, then delivers and ticks for d.
func (r *statusRig) request(d time.Duration, evs ...twophase.SigningEvent) {
	for _, ev := range evs {
		for _, id := range r.sim.IDs {
			r.take(id, r.states[id].Request(ev, "source", r.env()))
		}
	}
	for end := r.now.Add(d); r.now.Before(end); {
		for len(r.queue) > 0 {
			m := r.queue[0]
			r.queue = r.queue[1:]
			r.take(m.to, r.states[m.to].Deliver(m.raw, r.env()))
		}
		r.now = r.now.Add(r.params.Tick)
		r.ledger.AdvanceTo(r.now)
		for _, id := range r.sim.IDs {
			r.take(id, r.states[id].Tick(r.env()))
		}
	}
}

// logged writes member id's facts to a signer log in a fresh data
// directory, as a stopped signer leaves it, and returns its setup.
func (r *statusRig) logged(id twophase.PeerID) *signerSetup {
	r.t.Helper()
	s := &signerSetup{protocol: r.config(id), data: r.t.TempDir()}
	lg, err := embeddedlog.Open(s.logDir())
	if err != nil {
		r.t.Fatal(err)
	}
	defer lg.Close()
	app := &handlers.Appender{Log: lg, Catalog: topics.DefaultCatalog(), Now: func() time.Time { return r.now }}
	evs := make([]domain.Event, len(r.facts[id]))
	for i, f := range r.facts[id] {
		evs[i] = f
	}
	if _, err := app.Append(context.Background(), handlers.Cause{OccurredAt: r.now}, evs...); err != nil {
		r.t.Fatal(err)
	}
	return s
}

func statusEvents(stream string, n int) []twophase.SigningEvent {
	var out []twophase.SigningEvent
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("%s/%d", stream, i)
		out = append(out, twophase.SigningEvent{Stream: s, Nonce: twophase.FirstNonce, Destination: "sim:user-" + s,
			Amount: 50_000 + uint64(i), Source: twophase.SourceRef{Chain: "evm:1337", Block: 100}})
	}
	return out
}

// TestSignerStatusShowsLocks: a Profile B signer whose events of two
// streams are committed on lock certificates: `signer status` from the
// running signer (GET /status) and from its log replayed show the
// group's profile and f, each certificate (event, round, anchor,
// template, signers) and every outpoint the certificates reserve, as the
// protocol's state holds them; the text prints them as tables.
func TestSignerStatusShowsLocks(t *testing.T) {
	r := newStatusRig(t, 4, true)
	evs := statusEvents("evm:1337:bridge", 2)
	r.request(3*time.Second, evs...)
	st := r.states["s1"]
	reserved := st.Reserved()
	held := map[twophase.Hash]bool{}
	for _, res := range reserved {
		held[res.EventID] = true
	}
	if len(held) != 2 {
		t.Fatalf("s1 holds certificates of %d events, want both", len(held))
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, newStatusDoc(signing.StatusOf("s1", st), true, r.now, nil, nil))
	}))
	defer srv.Close()
	live, err := fetchSignerStatus(context.Background(), strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := replayedSignerStatus(context.Background(), r.logged("s1"))
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]signerStatusDoc{"GET /status": live, "replayed log": replayed} {
		if want := (statusGroup{Profile: "b", Members: 4, Quorum: 3, Faults: 1}); doc.Group != want {
			t.Errorf("%s: group %+v, want %+v", name, doc.Group, want)
		}
		checkLocks(t, name, doc, st, evs)
	}
	if !reflect.DeepEqual(live.Certificates, replayed.Certificates) || !reflect.DeepEqual(live.Reserved, replayed.Reserved) {
		t.Errorf("the replayed log shows other locks than the running signer:\n  live     %+v %+v\n  replayed %+v %+v",
			live.Certificates, live.Reserved, replayed.Certificates, replayed.Reserved)
	}

	var out bytes.Buffer
	printSignerStatus(&out, "/data/log", live)
	text := out.String()
	wantLines := []string{"group: Profile B, 4 members, quorum 3, tolerates f = 1 Byzantine", "events: 2 phases: 2 Committed",
		"lock certificates held: 2",
		fmt.Sprintf("reserved outpoints: %d", len(reserved))}
	for _, c := range live.Certificates {
		wantLines = append(wantLines, fmt.Sprintf("%s  %s  %d  %d/%d  %d  %s  %s  %d", shortHex(c.Event), c.Stream, c.Nonce,
			c.Epoch, c.Round, c.Anchor, shortHex(c.TemplateHash), strings.Join(c.Signers, ","), c.Outpoints))
	}
	for _, res := range live.Reserved {
		wantLines = append(wantLines, fmt.Sprintf("%s  %s  %d  %d", res.Outpoint, shortHex(res.Event), res.Round, res.Anchor))
	}
	for _, l := range wantLines {
		if !containsLine(text, l) {
			t.Errorf("signer status lacks %q:\n%s", l, text)
		}
	}
}

// checkLocks compares a status document's certificates and reservations
// with the state's reservations.
func checkLocks(t *testing.T, name string, doc signerStatusDoc, st *twophase.State, evs []twophase.SigningEvent) {
	t.Helper()
	stream := map[string]twophase.SigningEvent{}
	for _, ev := range evs {
		stream[ev.ID().Hex()] = ev
	}
	var want []statusReservation
	perEvent := map[string]statusReservation{}
	count := map[string]int{}
	for _, res := range st.Reserved() {
		sr := statusReservation{Outpoint: res.Outpoint.String(), Event: res.EventID.Hex(), Round: res.Round,
			TemplateHash: res.TemplateHash.Hex(), Anchor: res.Anchor}
		want = append(want, sr)
		perEvent[sr.Event] = sr
		count[sr.Event]++
	}
	if !reflect.DeepEqual(doc.Reserved, want) {
		t.Errorf("%s: reserved %+v\nwant %+v", name, doc.Reserved, want)
	}
	if len(doc.Certificates) != len(perEvent) {
		t.Fatalf("%s: %d certificates, the state reserves for %d events", name, len(doc.Certificates), len(perEvent))
	}
	for _, c := range doc.Certificates {
		res, ev := perEvent[c.Event], stream[c.Event]
		if c.Round != res.Round || c.Anchor != res.Anchor || c.TemplateHash != res.TemplateHash || c.Outpoints != count[c.Event] ||
			c.Stream != ev.Stream || c.Nonce != ev.Nonce || len(c.Signers) < 3 {
			t.Errorf("%s: certificate %+v, the state reserves %d outpoints as %+v for %s", name, c, count[c.Event], res, ev)
		}
	}
}

// containsLine reports whether text has a line equal to want, runs of
// spaces (a table's padding) counting as one.
func containsLine(text, want string) bool {
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for _, l := range strings.Split(text, "\n") {
		if squeeze(l) == squeeze(want) {
			return true
		}
	}
	return false
}

// TestSignerStatusProfileA: a Profile A signer's status names its
// profile and quorum, and has no lock certificates or reserved outpoints
// to show.
func TestSignerStatusProfileA(t *testing.T) {
	r := newStatusRig(t, 3, false)
	r.request(3*time.Second, statusEvents("evm:1337:bridge", 1)...)
	doc, err := replayedSignerStatus(context.Background(), r.logged("s1"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (statusGroup{Profile: "a", Members: 3, Quorum: 2}); doc.Group != want || doc.Phases["Committed"] != 1 ||
		len(doc.Certificates)+len(doc.Reserved) != 0 {
		t.Fatalf("group %+v, phases %v, %d certificates, %d reserved: want %+v, one event committed and no locks",
			doc.Group, doc.Phases, len(doc.Certificates), len(doc.Reserved), want)
	}
	var out bytes.Buffer
	printSignerStatus(&out, "/data/log", doc)
	if !containsLine(out.String(), "group: Profile A, 3 members, quorum 2") || strings.Contains(out.String(), "lock certificates") ||
		strings.Contains(out.String(), "reserved outpoints") {
		t.Fatalf("signer status of a Profile A signer:\n%s", out.String())
	}
}

// TestSignerStatusShowsRefused: a refused event shows as Refused with
// its reason and its certificate's state, in the document and the text.
func TestSignerStatusShowsRefused(t *testing.T) {
	r := newStatusRig(t, 3, false)
	bad := statusEvents("evm:1337:bridge", 1)[0]
	bad.Destination = "kaspa:notasimaddress"
	r.request(3*time.Second, bad)
	doc := newStatusDoc(signing.StatusOf("s1", r.states["s1"]), true, r.now, nil, nil)
	if doc.Phases["Refused"] != 1 || len(doc.Events) != 1 {
		t.Fatalf("phases %v, %d events", doc.Phases, len(doc.Events))
	}
	e := doc.Events[0]
	if e.Phase != "Refused" || e.Refusal != string(twophase.RefusedNotAnAddress) || e.Refund != "certified" {
		t.Fatalf("refused event shown as %+v", e)
	}
	var out strings.Builder
	printSignerStatus(&out, "", doc)
	if !strings.Contains(out.String(), "Refused (not_an_address, refund certified)") {
		t.Fatalf("text:\n%s", out.String())
	}
}
