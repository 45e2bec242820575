package projections_test

import (
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridgelog/bridgelog/adapters/sqlstore/pgtest"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
)

const streamC = "evm:1337:third"

// lockScenario is a Profile B group's day: three streams' events certified
// and paid at once, a certified template whose inputs vanish before it is
// signed (its commit given up, another round certifying other outputs),
// and two more events at once.
func lockScenario(r *signerRig) {
	for _, s := range []string{streamA, streamB, streamC} {
		r.request(signingEvent(s, 0))
	}
	r.advance(10 * time.Second)

	a1 := signingEvent(streamA, 1)
	r.request(a1)
	r.tickOnly() // Profile B locks a tick after it learns of an event
	r.withdrawn(a1)
	r.advance(30 * time.Second)

	r.request(signingEvent(streamB, 1))
	r.request(signingEvent(streamC, 1))
	r.advance(10 * time.Second)
}

// TestLockCertificatesFollowTheProtocol drives four Profile B signers
// through lockScenario and, after every step a signer took, checks the
// held rows of reserved_outpoints against the protocol's own reservations
// (twophase.State.Reserved of the facts its log lets through) and
// lock_certificates against the certificates the log accepted. Replays on
// SQLite and PostgreSQL and a rewind over the live rows give the live
// digests; the tables show the certificates held at once, the one given
// up, and every reservation released by its event's completion.
func TestLockCertificatesFollowTheProtocol(t *testing.T) {
	pg := pgtest.Start(t)
	r := newSignerRigB(t)
	live := map[twophase.PeerID]*projections.Runner{}
	stores := map[twophase.PeerID]projections.Store{}
	refs := map[twophase.PeerID]*firstFacts{}
	mostHeld := 0
	for _, id := range r.ids {
		stores[id], _ = sqliteStore(t)
		live[id] = newRunner(t, r.signers[id].log, stores[id], projections.SignerProjections(), projections.WithBatchSize(7))
		refs[id] = newFirstFacts(t, r, id)
		refs[id].add(r.signers[id].facts)
	}
	r.appended = func(id twophase.PeerID) {
		ref := refs[id]
		ref.add(r.signers[id].facts[len(ref.seen)+ref.dropped:])
		catchUp(t, live[id])
		events := checkReserved(t, stores[id], ref.st, fmt.Sprintf("%s after %d facts", id, len(r.signers[id].facts)))
		mostHeld = max(mostHeld, events)
	}
	lockScenario(r)
	if mostHeld < 2 {
		t.Fatalf("no signer held certificates of two events at once (at most %d)", mostHeld)
	}
	for _, id := range r.ids {
		ref := refs[id]
		checkCertificates(t, stores[id], ref, string(id))
		want := digests(t, live[id])

		pgStore, _ := postgresStore(pg)(t)
		pgRun := newRunner(t, r.signers[id].log, pgStore, projections.SignerProjections(), projections.WithBatchSize(5000))
		catchUp(t, pgRun)
		checkReserved(t, pgStore, ref.st, string(id)+" on PostgreSQL")
		checkCertificates(t, pgStore, ref, string(id)+" on PostgreSQL")
		sameDigests(t, string(id)+" replayed on PostgreSQL", want, digests(t, pgRun))

		replay, _ := sqliteStore(t)
		sameDigests(t, string(id)+" replayed on SQLite", want, digests(t, catchUpNew(t, r, id, replay)))

		if err := live[id].Rewind(ctxT(t), 0, "lock_certificates"); err != nil {
			t.Fatal(err)
		}
		if s := catchUp(t, live[id]); s.Applied["lock_certificates@v1"] == 0 {
			t.Fatalf("%s: the rewind folded nothing again: %+v", id, s)
		}
		sameDigests(t, string(id)+" after a rewind to 0", want, digests(t, live[id]))
		lockOutcomes(t, stores[id], string(id))
	}
}

func catchUpNew(t *testing.T, r *signerRig, id twophase.PeerID, st projections.Store) *projections.Runner {
	run := newRunner(t, r.signers[id].log, st, projections.SignerProjections())
	catchUp(t, run)
	return run
}

// checkReserved compares the held rows of reserved_outpoints with the
// state's reservations and returns how many events hold them.
func checkReserved(t *testing.T, st projections.Store, ref *twophase.State, at string) int {
	t.Helper()
	want := map[string]string{}
	events := map[twophase.Hash]bool{}
	for _, res := range ref.Reserved() {
		want[res.Outpoint.String()] = fmt.Sprint(res.EventID.Hex(), res.Round, res.TemplateHash.Hex(), res.Anchor)
		events[res.EventID] = true
	}
	got := map[string]string{}
	eachRow(t, st, `SELECT outpoint, event_id, round, template_hash, anchor FROM reserved_outpoints_v1 WHERE released_by IS NULL`,
		func(rows *sql.Rows) error {
			var o, id, hash string
			var round, anchor int64
			err := rows.Scan(&o, &id, &round, &hash, &anchor)
			if _, twice := got[o]; twice {
				t.Errorf("%s: outpoint %s held by two certificates", at, o)
			}
			got[o] = fmt.Sprint(id, round, hash, anchor)
			return err
		})
	if !maps.Equal(got, want) {
		t.Fatalf("%s: held reserved_outpoints\n  rows  %v\n  state %v", at, got, want)
	}
	return len(events)
}

// checkCertificates compares lock_certificates with the certificates the
// log let through (the first of each event, epoch and round).
func checkCertificates(t *testing.T, st projections.Store, ref *firstFacts, at string) {
	t.Helper()
	want := map[string]string{}
	for _, f := range ref.facts {
		c, ok := f.(twophase.LockCertAccepted)
		if !ok {
			continue
		}
		k := fmt.Sprint(c.EventID.Hex(), c.Epoch, c.Round)
		if _, ok := want[k]; ok {
			continue
		}
		signers := make([]string, len(c.Signers))
		for i, s := range c.Signers {
			signers[i] = string(s)
		}
		want[k] = fmt.Sprint(c.Anchor, c.TemplateHash.Hex(), strings.Join(signers, ","), len(c.Outpoints), timeOrNull(time.Unix(0, c.AtNs)))
	}
	got := map[string]string{}
	eachRow(t, st, `SELECT event_id, epoch, round, anchor, template_hash, signers, outpoints, accepted_at FROM lock_certificates_v1`,
		func(rows *sql.Rows) error {
			var id, hash, signers, acceptedAt string
			var epoch, round, anchor, outpoints int64
			err := rows.Scan(&id, &epoch, &round, &anchor, &hash, &signers, &outpoints, &acceptedAt)
			got[fmt.Sprint(id, epoch, round)] = fmt.Sprint(anchor, hash, signers, outpoints, acceptedAt)
			return err
		})
	if !maps.Equal(got, want) {
		t.Fatalf("%s: lock_certificates\n  rows  %v\n  facts %v", at, got, want)
	}
}

// lockOutcomes checks that the scenario produced what it is meant to
// exercise, as the tables show it: every event paid under a certificate
// its completion released, A#1's first certificate released when its
// inputs failed revalidation, and nothing held at the end.
func lockOutcomes(t *testing.T, st projections.Store, at string) {
	t.Helper()
	var releases []string
	eachRow(t, st, `SELECT released_by, count(*) FROM lock_certificates_v1 GROUP BY released_by ORDER BY released_by`,
		func(rows *sql.Rows) error {
			var by sql.NullString
			var n int64
			err := rows.Scan(&by, &n)
			releases = append(releases, fmt.Sprintf("%s %d", nullable(by), n))
			return err
		})
	want := []string{"signing.completed 6", "signing.round_failed/revalidation_failed 1"}
	if !slices.Equal(releases, want) {
		t.Errorf("%s: certificates by release %v, want %v", at, releases, want)
	}
	var givenUp string
	query(t, st, `SELECT event_id FROM lock_certificates_v1 WHERE released_by = 'signing.round_failed/revalidation_failed'`, nil, &givenUp)
	if givenUp != signingEvent(streamA, 1).ID().Hex() {
		t.Errorf("%s: the certificate given up is of event %s, want A#1's", at, givenUp)
	}
	var held, outpoints, unreleased int64
	query(t, st, `SELECT count(*) FROM reserved_outpoints_v1 WHERE released_by IS NULL`, nil, &held)
	query(t, st, `SELECT coalesce(sum(outpoints), 0) FROM lock_certificates_v1`, nil, &outpoints)
	query(t, st, `SELECT count(*) FROM reserved_outpoints_v1 r JOIN lock_certificates_v1 c
		ON c.event_id = r.event_id AND c.epoch = r.epoch AND c.round = r.round
		WHERE coalesce(r.released_by, '') <> coalesce(c.released_by, '') OR coalesce(r.released_at, '') <> coalesce(c.released_at, '')`, nil, &unreleased)
	var rows int64
	query(t, st, `SELECT count(*) FROM reserved_outpoints_v1`, nil, &rows)
	if held != 0 || rows != outpoints || unreleased != 0 {
		t.Errorf("%s: %d outpoints held at the end, %d reservation rows for %d certified outpoints, %d released unlike their certificate",
			at, held, rows, outpoints, unreleased)
	}
}

// TestLockCertificatesReleased: a certificate's outpoints are held from
// its LockCertAccepted until its event completes, is abandoned or reset,
// or gives its commit up (a round failed on revalidation or a rejected
// payout; not a round that fails otherwise); a commit made again on the
// certificate holds them again, although the signer's second
// LockCertAccepted of it is a conflict on the log that never reaches the
// projections. Released rows stay, naming what released them. Folded
// step by step, in another interleaving of the events, or again after a
// rewind, the tables are the same.
func TestLockCertificatesReleased(t *testing.T) {
	x, y, z := signingEvent(streamA, 0), signingEvent(streamB, 0), signingEvent(streamC, 0)
	op := func(b byte) twophase.Outpoint {
		return twophase.Outpoint{TxID: twophase.Hash{0xee, b}, Index: uint32(b)}
	}
	cert := func(ev twophase.SigningEvent, epoch, round uint32, hash byte, at int64, outs ...twophase.Outpoint) twophase.LockCertAccepted {
		return twophase.LockCertAccepted{EventID: ev.ID(), Epoch: epoch, Round: round, Anchor: 990 + uint64(round), TemplateHash: twophase.Hash{hash},
			Outpoints: outs, Signers: []twophase.PeerID{"s1", "s2", "s4"}, Cert: []byte{hash}, AtNs: at}
	}
	committed := func(ev twophase.SigningEvent, epoch, round uint32, hash byte, inRound uint32, at int64) twophase.Committed {
		return twophase.Committed{EventID: ev.ID(), Epoch: epoch, Round: round, Hash: twophase.Hash{hash}, Trigger: twophase.TriggerLockCert,
			InRound: inRound, AtNs: at}
	}
	failed := func(ev twophase.SigningEvent, epoch, round uint32, reason twophase.Reason, at int64) twophase.RoundFailed {
		return twophase.RoundFailed{EventID: ev.ID(), Epoch: epoch, Round: round, Reason: reason, AtNs: at}
	}
	xCert := cert(x, 0, 0, 1, 10, op(1), op(2))
	again := xCert
	again.AtNs = 50
	held := func(ev twophase.SigningEvent, epoch int, ops ...twophase.Outpoint) []string {
		var out []string
		for _, o := range ops {
			out = append(out, fmt.Sprint(o, " ", ev.ID().Hex(), " ", epoch))
		}
		return out
	}
	yz := append(held(y, 0, op(4)), held(z, 0, op(5))...)
	steps := []struct {
		what  string
		facts []twophase.Fact
		held  []string // after the step
	}{
		{"X certified and committed", []twophase.Fact{xCert, committed(x, 0, 0, 1, 0, 11)}, held(x, 0, op(1), op(2))},
		{"Y and Z certified", []twophase.Fact{cert(y, 0, 0, 3, 12, op(4)), cert(z, 0, 0, 4, 13, op(5))},
			append(held(x, 0, op(1), op(2)), yz...)},
		{"X's round times out", []twophase.Fact{failed(x, 0, 0, twophase.ReasonTimeoutNoQuorum, 20)},
			append(held(x, 0, op(1), op(2)), yz...)},
		{"X's inputs fail revalidation", []twophase.Fact{failed(x, 0, 1, twophase.ReasonRevalidationFailed, 30)}, yz},
		{"X committed again on its certificate", []twophase.Fact{again, committed(x, 0, 0, 1, 2, 51)},
			append(held(x, 0, op(1), op(2)), yz...)},
		{"Y paid", []twophase.Fact{twophase.Completed{EventID: y.ID(), Hash: twophase.Hash{3}, AtNs: 60}},
			append(held(x, 0, op(1), op(2)), held(z, 0, op(5))...)},
		{"X reset", []twophase.Fact{twophase.AdminReset{EventID: x.ID(), Epoch: 1, Operator: "ops", AtNs: 70}}, held(z, 0, op(5))},
		{"X certified in epoch 1", []twophase.Fact{cert(x, 1, 0, 2, 80, op(1), op(3))},
			append(held(x, 1, op(1), op(3)), held(z, 0, op(5))...)},
		{"X abandoned", []twophase.Fact{twophase.Abandoned{EventID: x.ID(), Epoch: 1, AtNs: 90}}, held(z, 0, op(5))},
	}
	lg := embeddedLog(t)
	st, _ := sqliteStore(t)
	run := newRunner(t, lg, st, projections.SignerProjections())
	byEvent := map[string][]twophase.Fact{}
	for _, s := range steps {
		for _, f := range s.facts {
			appendEv(t, lg, t0, f)
			byEvent[f.AggregateID()] = append(byEvent[f.AggregateID()], f)
		}
		catchUp(t, run)
		slices.Sort(s.held)
		if got := heldOutpoints(t, st); !slices.Equal(got, s.held) {
			t.Fatalf("after %s: held\n  %v\nwant\n  %v", s.what, got, s.held)
		}
	}
	var conflicts int64
	query(t, st, `SELECT count(*) FROM event_conflicts_v1 WHERE event_source = ?`, []any{again.SourceKey()}, &conflicts)
	if conflicts != 1 {
		t.Errorf("the second LockCertAccepted of X's certificate: %d conflicts on the log, want 1", conflicts)
	}
	var certs []string
	eachRow(t, st, `SELECT event_id, epoch, round, coalesce(released_by, 'held'), coalesce(released_at, '') FROM lock_certificates_v1`,
		func(rows *sql.Rows) error {
			var id, by, at string
			var epoch, round int64
			err := rows.Scan(&id, &epoch, &round, &by, &at)
			certs = append(certs, fmt.Sprint(id, " ", epoch, " ", round, " ", by, " ", at))
			return err
		})
	wantCerts := []string{
		fmt.Sprint(x.ID().Hex(), " 0 0 signing.admin_reset ", timeOrNull(time.Unix(0, 70))),
		fmt.Sprint(x.ID().Hex(), " 1 0 signing.abandoned ", timeOrNull(time.Unix(0, 90))),
		fmt.Sprint(y.ID().Hex(), " 0 0 signing.completed ", timeOrNull(time.Unix(0, 60))),
		fmt.Sprint(z.ID().Hex(), " 0 0 held "),
	}
	slices.Sort(certs)
	slices.Sort(wantCerts)
	if !slices.Equal(certs, wantCerts) {
		t.Fatalf("lock_certificates\n  %v\nwant\n  %v", certs, wantCerts)
	}
	want0 := digests(t, run)

	// Z's, then Y's, then X's facts: another interleaving of partitions.
	other := embeddedLog(t)
	for _, ev := range []twophase.SigningEvent{z, y, x} {
		for _, f := range byEvent[twophase.EventAggregate(ev.ID())] {
			appendEv(t, other, t0, f)
		}
	}
	st2, _ := sqliteStore(t)
	run2 := newRunner(t, other, st2, projections.SignerProjections())
	catchUp(t, run2)
	if d := digests(t, run2); d["lock_certificates"] != want0["lock_certificates"] {
		t.Errorf("another interleaving: digest %s, want %s", d["lock_certificates"], want0["lock_certificates"])
	}
	if err := run.Rewind(ctxT(t), 0, "lock_certificates"); err != nil {
		t.Fatal(err)
	}
	catchUp(t, run)
	if d := digests(t, run); d["lock_certificates"] != want0["lock_certificates"] {
		t.Errorf("after a rewind: digest %s, want %s", d["lock_certificates"], want0["lock_certificates"])
	}
}

// heldOutpoints lists the held rows of reserved_outpoints as
// "outpoint event epoch", sorted.
func heldOutpoints(t *testing.T, st projections.Store) []string {
	t.Helper()
	var out []string
	eachRow(t, st, `SELECT outpoint, event_id, epoch FROM reserved_outpoints_v1 WHERE released_by IS NULL ORDER BY outpoint, event_id`,
		func(rows *sql.Rows) error {
			var o, id string
			var epoch int64
			err := rows.Scan(&o, &id, &epoch)
			out = append(out, fmt.Sprint(o, " ", id, " ", epoch))
			return err
		})
	slices.Sort(out)
	return out
}
