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

const (
	streamA = "evm:1337:bridge"
	streamB = "evm:1337:other"
)

// signerScenario is a group's working day: a round that times out on
// divergent views and is retried, a late signer that fast-forwards on its
// peers' evidence, an event abandoned for want of deep inputs and reset by
// an operator, a byzantine member's theft and equivocation, inputs taken
// away by a reorg between vote and signature, and a stream that waits for
// a missing nonce.
func signerScenario(r *signerRig) {
	// A#0: three views, three votes, no quorum; the retry commits.
	r.ledger.Fund(twophase.Outpoint{TxID: [32]byte{0xa}}, 50_000_000, 1000, false)
	r.ledger.Fund(twophase.Outpoint{TxID: [32]byte{0xb}}, 40_000_000, 990, false)
	r.now = r.now.Add(2 * time.Second)
	r.ledger.AdvanceTo(r.now)
	r.lag["s2"], r.lag["s3"] = 5, 15
	r.request(signingEvent(streamA, 0))
	r.flush()
	r.lag["s2"], r.lag["s3"] = 0, 0
	r.advance(15 * time.Second)

	// A#1: s3 hears of it after s1 and s2 paid.
	a1 := signingEvent(streamA, 1)
	r.request(a1, "s1", "s2")
	r.advance(3 * time.Second)
	r.request(a1, "s3")
	r.advance(3 * time.Second)

	// A#2: no node sees deep outputs; every round fails and the event is
	// abandoned; the nodes catch up and an operator resets it.
	a2 := signingEvent(streamA, 2)
	for _, id := range r.ids {
		r.lag[id] = 1_000_000
	}
	r.request(a2)
	r.advance(2 * r.params.WithDefaults().MaxTimeToAbandon())
	for _, id := range r.ids {
		r.lag[id] = 0
	}
	r.adminReset(a2)
	r.advance(5 * time.Second)

	// A#3: s1 proposes a theft to s2, then equivocates.
	a3 := signingEvent(streamA, 3)
	r.request(a3, "s2")
	r.byzantine(a3)
	r.request(a3, "s1", "s3")
	r.advance(5 * time.Second)

	// A#4: the voted template's inputs vanish before it is signed.
	a4 := signingEvent(streamA, 4)
	r.request(a4)
	r.withdrawn(a4)
	r.advance(30 * time.Second)

	// B#1 waits for B#0, which never comes.
	r.request(signingEvent(streamB, 1))
	r.advance(2 * time.Second)
}

// firstFacts folds a signer's facts the way its log's dedup lets them
// through to projections: the first fact of each source key.
type firstFacts struct {
	st      *twophase.State
	seen    map[string]bool
	facts   []twophase.Fact
	dropped int
}

func newFirstFacts(t *testing.T, r *signerRig, id twophase.PeerID) *firstFacts {
	st, err := twophase.NewState(r.config(id))
	if err != nil {
		t.Fatal(err)
	}
	return &firstFacts{st: st, seen: map[string]bool{}}
}

func (f *firstFacts) add(facts []twophase.Fact) {
	for _, x := range facts {
		if f.seen[x.SourceKey()] {
			f.dropped++
			continue
		}
		f.seen[x.SourceKey()] = true
		f.facts = append(f.facts, x)
		f.st.Apply(x)
	}
}

// TestSignerProjectionsFollowTheProtocol drives three signers through
// signerScenario, each appending to its own log, and after every step a
// signer took checks its event_phase and signing_streams against the
// protocol's own fold (twophase.State.Apply) of the facts its log lets
// through; at the end also event_proposals and signed_templates. Then a
// replay on SQLite and on PostgreSQL, and a rewind over the live rows,
// give the live digests.
func TestSignerProjectionsFollowTheProtocol(t *testing.T) {
	pg := pgtest.Start(t)
	r := newSignerRig(t)
	live := map[twophase.PeerID]*projections.Runner{}
	stores := map[twophase.PeerID]projections.Store{}
	refs := map[twophase.PeerID]*firstFacts{}
	steps := 0
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
		checkPhases(t, stores[id], ref.st, fmt.Sprintf("%s after %d facts", id, len(r.signers[id].facts)))
		steps++
	}
	signerScenario(r)
	if steps < 100 {
		t.Fatalf("the scenario took only %d steps", steps)
	}
	for _, id := range r.ids {
		ref := refs[id]
		checkAll(t, stores[id], ref, string(id))
		want := digests(t, live[id])

		pgStore, _ := postgresStore(pg)(t)
		pgRun := newRunner(t, r.signers[id].log, pgStore, projections.SignerProjections(), projections.WithBatchSize(5000))
		catchUp(t, pgRun)
		checkAll(t, pgStore, ref, string(id)+" on PostgreSQL")
		sameDigests(t, string(id)+" replayed on PostgreSQL", want, digests(t, pgRun))

		replay, _ := sqliteStore(t)
		replayRun := newRunner(t, r.signers[id].log, replay, projections.SignerProjections())
		if s := catchUp(t, replayRun); s.Conflicts+s.Duplicates != int64(ref.dropped) {
			t.Errorf("%s: the log's dedup dropped %d facts, the first-fact fold %d", id, s.Conflicts+s.Duplicates, ref.dropped)
		}
		sameDigests(t, string(id)+" replayed on SQLite", want, digests(t, replayRun))

		if err := live[id].Rewind(ctxT(t), 0, "event_phase", "event_proposals", "signed_templates"); err != nil {
			t.Fatal(err)
		}
		if s := catchUp(t, live[id]); s.Applied["event_phase@v2"] == 0 {
			t.Fatalf("%s: the rewind folded nothing again: %+v", id, s)
		}
		sameDigests(t, string(id)+" after a rewind to 0", want, digests(t, live[id]))
	}
	scenarioOutcomes(t, r, stores)
}

func sameDigests(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	for _, p := range projections.SignerProjections() {
		if got[p.Name()] == "" || got[p.Name()] != want[p.Name()] {
			t.Errorf("%s: %s digest %s, live %s", what, p.Name(), got[p.Name()], want[p.Name()])
		}
	}
}

func nullable(s sql.NullString) string {
	if !s.Valid {
		return "NULL"
	}
	return s.String
}

func timeOrNull(tm time.Time) string {
	if tm.IsZero() {
		return "NULL"
	}
	return projections.FormatTime(tm).(string)
}

func hashOrNull(h twophase.Hash) string {
	if h.IsZero() {
		return "NULL"
	}
	return h.Hex()
}

// ownVote is the signer's vote of the highest round it voted in.
func ownVote(st *twophase.State, e *twophase.EventState) (string, string) {
	self := st.Config().Self
	for r := int(e.Round) + 16; r >= 0; r-- {
		for _, b := range st.Votes(e.ID, uint32(r)) {
			if b.Voter != self {
				continue
			}
			if b.None {
				return fmt.Sprint(r), "NULL"
			}
			return fmt.Sprint(r), b.Hash.Hex()
		}
	}
	return "NULL", "NULL"
}

// checkPhases compares event_phase and signing_streams with the
// protocol's state.
func checkPhases(t *testing.T, st projections.Store, ref *twophase.State, at string) {
	t.Helper()
	want := map[string]string{}
	for _, e := range ref.Events() {
		signed := "NULL"
		if e.Signed != nil {
			signed = e.Signed.Hash.Hex()
		}
		voteRound, voteHash := ownVote(ref, e)
		want[e.ID.Hex()] = strings.Join([]string{e.Event.Stream, fmt.Sprint(e.Event.Nonce), e.Event.Destination,
			fmt.Sprint(e.Event.Amount), e.Via, e.Phase.String(), fmt.Sprint(e.Epoch), fmt.Sprint(e.Round),
			hashOrNull(e.Canonical), fmt.Sprint(e.CommitRound), voteRound, voteHash, fmt.Sprint(e.RetryCount),
			timeOrNull(e.RetryAt), fmt.Sprint(e.Submitted), hashOrNull(e.PayoutTx), signed,
			timeOrNull(e.PhaseSince), timeOrNull(e.FirstRoundAt), timeOrNull(e.DoneAt)}, " ")
	}
	got := map[string]string{}
	eachRow(t, st, `SELECT event_id, stream, nonce, destination, amount, via, phase, epoch, round, canonical_hash,
		coalesce(commit_round, 0), own_vote_round, own_vote_hash, retry_count, retry_at, payout_attempts, payout_txid, signed_hash,
		phase_since, first_round_at, done_at FROM event_phase_v2`, func(rows *sql.Rows) error {
		var id, stream, dest, amount, via, phase string
		var nonce, epoch, round, commitRound, retries, attempts int64
		var canonical, voteHash, retryAt, payout, signed, since, first, done sql.NullString
		var voteRound sql.NullInt64
		if err := rows.Scan(&id, &stream, &nonce, &dest, &amount, &via, &phase, &epoch, &round, &canonical, &commitRound,
			&voteRound, &voteHash, &retries, &retryAt, &attempts, &payout, &signed, &since, &first, &done); err != nil {
			return err
		}
		vr := "NULL"
		if voteRound.Valid {
			vr = fmt.Sprint(voteRound.Int64)
		}
		got[id] = strings.Join([]string{stream, fmt.Sprint(nonce), dest, amount, via, phase, fmt.Sprint(epoch), fmt.Sprint(round),
			nullable(canonical), fmt.Sprint(commitRound), vr, nullable(voteHash), fmt.Sprint(retries), nullable(retryAt),
			fmt.Sprint(attempts), nullable(payout), nullable(signed), nullable(since), nullable(first), nullable(done)}, " ")
		return nil
	})
	for id, w := range want {
		if got[id] != w {
			t.Fatalf("%s: event %s\n  row   %s\n  state %s", at, id[:10], got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d event_phase rows, the state has %d events", at, len(got), len(want))
	}
	wantStreams := map[string]string{}
	for _, s := range ref.Streams() {
		wantStreams[s.Stream] = fmt.Sprint(s.Next, s.Pending, s.Blocked)
	}
	gotStreams := map[string]string{}
	eachRow(t, st, `SELECT stream, next_nonce, pending, blocked FROM signing_streams_v2`, func(rows *sql.Rows) error {
		var s string
		var next, pending, blocked int64
		err := rows.Scan(&s, &next, &pending, &blocked)
		gotStreams[s] = fmt.Sprint(next, pending, blocked == 1)
		return err
	})
	if !maps.Equal(gotStreams, wantStreams) {
		t.Fatalf("%s: signing_streams %v, state %v", at, gotStreams, wantStreams)
	}
}

// checkAll also compares event_proposals and signed_templates with the
// facts and the state.
func checkAll(t *testing.T, st projections.Store, ref *firstFacts, at string) {
	t.Helper()
	checkPhases(t, st, ref.st, at)
	// Every vote, rejection and equivocation of the log is a row.
	var wantRows []string
	for _, f := range ref.facts {
		switch f := f.(type) {
		case twophase.VoteAccepted:
			h := f.Hash.Hex()
			if f.NoVote {
				h = "NULL"
			}
			wantRows = append(wantRows, fmt.Sprint(f.EventID.Hex(), f.Epoch, f.Round, f.Voter, "vote", h, f.Reason, f.Own, true))
		case twophase.VoteRejected:
			wantRows = append(wantRows, fmt.Sprint(f.EventID.Hex(), f.Epoch, f.Round, f.Sender, "rejected/"+f.Digest.Hex(), hashOrNull(f.Hash), f.Reason, false, false))
		case twophase.Equivocation:
			wantRows = append(wantRows, fmt.Sprint(f.EventID.Hex(), f.Epoch, f.Round, f.Voter, "equivocation/"+f.SecondHash.Hex(), f.SecondHash.Hex(), "equivocation", false, false))
		}
	}
	var gotRows []string
	eachRow(t, st, `SELECT event_id, epoch, round, voter, record, hash, reason, own, accepted FROM event_proposals_v1`, func(rows *sql.Rows) error {
		var id, voter, record, reason string
		var hash sql.NullString
		var epoch, round, own, accepted int64
		err := rows.Scan(&id, &epoch, &round, &voter, &record, &hash, &reason, &own, &accepted)
		gotRows = append(gotRows, fmt.Sprint(id, epoch, round, voter, record, nullable(hash), reason, own == 1, accepted == 1))
		return err
	})
	slices.Sort(wantRows)
	slices.Sort(gotRows)
	if !slices.Equal(gotRows, wantRows) {
		t.Fatalf("%s: event_proposals\n  rows  %v\n  facts %v", at, gotRows, wantRows)
	}
	// The votes the state counts are the accepted rows of each event's
	// current epoch.
	for _, e := range ref.st.Events() {
		want := map[string]string{}
		for r := uint32(0); r <= e.Round+16; r++ {
			for _, b := range ref.st.Votes(e.ID, r) {
				want[fmt.Sprint(r, b.Voter)] = map[bool]string{true: "NULL", false: b.Hash.Hex()}[b.None]
			}
		}
		got := map[string]string{}
		eachRow(t, st, `SELECT round, voter, hash FROM event_proposals_v1 WHERE event_id = ? AND epoch = ? AND accepted = 1`, func(rows *sql.Rows) error {
			var round int64
			var voter string
			var hash sql.NullString
			err := rows.Scan(&round, &voter, &hash)
			got[fmt.Sprint(round, voter)] = nullable(hash)
			return err
		}, e.ID.Hex(), int64(e.Epoch))
		if !maps.Equal(got, want) {
			t.Fatalf("%s: votes of %s epoch %d: rows %v, state %v", at, e.Event, e.Epoch, got, want)
		}
	}
	wantSigned, gotSigned := map[string]string{}, map[string]string{}
	for _, e := range ref.st.Events() {
		if e.Signed != nil {
			wantSigned[e.ID.Hex()] = e.Signed.Hash.Hex()
		}
	}
	eachRow(t, st, `SELECT event_id, hash FROM signed_templates_v1`, func(rows *sql.Rows) error {
		var id, hash string
		err := rows.Scan(&id, &hash)
		gotSigned[id] = hash
		return err
	})
	if !maps.Equal(gotSigned, wantSigned) {
		t.Fatalf("%s: signed_templates %v, state %v", at, gotSigned, wantSigned)
	}
}

// scenarioOutcomes checks that the scenario produced what it is meant to
// exercise, as the tables show it.
func scenarioOutcomes(t *testing.T, r *signerRig, stores map[twophase.PeerID]projections.Store) {
	t.Helper()
	for _, id := range r.ids {
		st := stores[id]
		var streams []string
		eachRow(t, st, `SELECT stream, next_nonce, pending, blocked FROM signing_streams_v2 ORDER BY stream`, func(rows *sql.Rows) error {
			var s string
			var next, pending, blocked int64
			err := rows.Scan(&s, &next, &pending, &blocked)
			streams = append(streams, fmt.Sprintf("%s %d %d %d", s, next, pending, blocked))
			return err
		})
		if want := []string{streamA + " 6 0 0", streamB + " 1 1 1"}; !slices.Equal(streams, want) {
			t.Errorf("%s: streams %v, want %v", id, streams, want)
		}
		var phase string
		var epoch, epochs int64
		query(t, st, `SELECT phase, epoch FROM event_phase_v2 WHERE event_id = ?`, []any{signingEvent(streamA, 2).ID().Hex()}, &phase, &epoch)
		query(t, st, `SELECT count(DISTINCT epoch) FROM event_proposals_v1 WHERE event_id = ?`, []any{signingEvent(streamA, 2).ID().Hex()}, &epochs)
		if phase != "Completed" || epoch != 1 || epochs != 2 {
			t.Errorf("%s: the reset event is %s in epoch %d with votes in %d epochs", id, phase, epoch, epochs)
		}
	}
	var retried, failed int
	query(t, stores["s3"], `SELECT retry_count FROM event_phase_v2 WHERE event_id = ?`, []any{signingEvent(streamA, 0).ID().Hex()}, &retried)
	if retried == 0 {
		t.Error("s3 did not retry A#0")
	}
	for _, f := range r.signers["s1"].facts {
		if rf, ok := f.(twophase.RoundFailed); ok && rf.Reason == twophase.ReasonRevalidationFailed {
			failed++
		}
	}
	if failed == 0 {
		t.Error("no revalidation failed at s1")
	}
	a3 := signingEvent(streamA, 3).ID().Hex()
	var rejected, equivocations int
	query(t, stores["s2"], `SELECT count(*) FROM event_proposals_v1 WHERE event_id = ? AND voter = 's1' AND accepted = 0 AND reason = ?`,
		[]any{a3, string(twophase.ReasonForeignOutput)}, &rejected)
	query(t, stores["s2"], `SELECT count(*) FROM event_proposals_v1 WHERE event_id = ? AND voter = 's1' AND accepted = 0 AND reason = 'equivocation'`,
		[]any{a3}, &equivocations)
	if rejected != 1 || equivocations != 1 {
		t.Errorf("s2 recorded %d rejected thefts and %d equivocations of s1, want 1 each", rejected, equivocations)
	}
}

// eachRow runs a query in a store transaction and scans every row.
func eachRow(t *testing.T, st projections.Store, q string, scan func(*sql.Rows) error, args ...any) {
	t.Helper()
	tx, err := st.Begin(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(ctxT(t), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

func requested(ev twophase.SigningEvent, at int64) twophase.EventRequested {
	return twophase.EventRequested{Event: ev, ID: ev.ID(), Via: "source", AtNs: at}
}

func completed(ev twophase.SigningEvent, at int64) twophase.Completed {
	return twophase.Completed{EventID: ev.ID(), Hash: twophase.Hash{byte(ev.Nonce), 1}, TxID: twophase.Hash{byte(ev.Nonce), 2}, AtNs: at}
}

// TestSignedTemplatesWriteOnce: a second TemplateSigned of an event never
// reaches the projections. The same one again is a duplicate; one with
// another hash has the same source key, so the log's dedup records it as
// a conflict (event_conflicts) and signed_templates keeps the first hash.
func TestSignedTemplatesWriteOnce(t *testing.T) {
	lg := embeddedLog(t)
	ev := signingEvent(streamA, 0)
	first := twophase.TemplateSigned{EventID: ev.ID(), Hash: twophase.Hash{1}, TxID: twophase.Hash{2}, AtNs: 10}
	second := first
	second.Hash, second.TxID, second.AtNs = twophase.Hash{3}, twophase.Hash{4}, 20
	appendEv(t, lg, t0, requested(ev, 1), first, first, second)
	st, _ := sqliteStore(t)
	s := catchUp(t, newRunner(t, lg, st, projections.SignerProjections()))
	if s.First != 2 || s.Duplicates != 1 || s.Conflicts != 1 {
		t.Fatalf("summary %+v, want the repeat a duplicate and the other hash a conflict", s)
	}
	var hash, signed, source string
	query(t, st, `SELECT hash FROM signed_templates_v1 WHERE event_id = ?`, []any{ev.ID().Hex()}, &hash)
	query(t, st, `SELECT signed_hash FROM event_phase_v2 WHERE event_id = ?`, []any{ev.ID().Hex()}, &signed)
	query(t, st, `SELECT event_source FROM event_conflicts_v1`, nil, &source)
	if hash != first.Hash.Hex() || signed != first.Hash.Hex() || source != second.SourceKey() {
		t.Fatalf("signed_templates %s, event_phase %s, conflict on %q: want %s kept and the conflict on %q",
			hash, signed, source, first.Hash.Hex(), second.SourceKey())
	}
}

// TestSigningStreamsOrderIndependent: a stream moves past the nonces
// completed without a gap, from its first nonce; payouts seen out of
// order wait for the nonces before them. The rows are the same whatever
// order the events' partitions are folded in.
func TestSigningStreamsOrderIndependent(t *testing.T) {
	evs := []twophase.SigningEvent{signingEvent(streamA, 0), signingEvent(streamA, 1), signingEvent(streamA, 2), signingEvent(streamB, 6)}
	streamsOf := func(order []int, stop int) []string {
		lg := embeddedLog(t)
		st, _ := sqliteStore(t)
		run := newRunner(t, lg, st, []projections.Projection{projections.EventPhases{}})
		for _, i := range order[:stop] {
			ev := evs[i%len(evs)]
			if i < len(evs) {
				appendEv(t, lg, t0, requested(ev, int64(i+1)))
			} else {
				appendEv(t, lg, t0, completed(ev, int64(i+1)))
			}
			catchUp(t, run) // the fold follows the order given, whatever the partitions
		}
		var out []string
		eachRow(t, st, `SELECT stream, next_nonce, pending, blocked FROM signing_streams_v2 ORDER BY stream`, func(rows *sql.Rows) error {
			var s string
			var next, pending, blocked int64
			err := rows.Scan(&s, &next, &pending, &blocked)
			out = append(out, fmt.Sprintf("%s %d %d %d", s, next, pending, blocked))
			return err
		})
		return out
	}
	// 0..3 request A#1, A#2, A#3, B#7; 4..6 complete A#1..A#3.
	partial := streamsOf([]int{0, 1, 2, 3, 6, 5}, 6)
	if want := []string{streamA + " 1 3 0", streamB + " 1 1 1"}; !slices.Equal(partial, want) {
		t.Fatalf("A#3 and A#2 paid before A#1: streams %v, want %v", partial, want)
	}
	want := []string{streamA + " 4 0 0", streamB + " 1 1 1"}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6}, {3, 2, 6, 1, 5, 0, 4}, {0, 4, 1, 2, 3, 6, 5}} {
		if got := streamsOf(order, len(order)); !slices.Equal(got, want) {
			t.Fatalf("order %v: streams %v, want %v", order, got, want)
		}
	}
}

// TestEventRequestedTakenUpAsTheSignerDoes: an event whose nonce another
// event holds, or whose nonce the stream has passed, gets no row, as the
// signer's state would not take it up either.
func TestEventRequestedTakenUpAsTheSignerDoes(t *testing.T) {
	lg := embeddedLog(t)
	a0, a1 := signingEvent(streamA, 0), signingEvent(streamA, 1)
	rival := a1
	rival.Destination = "sim:rival"
	late := a0
	late.Amount++
	appendEv(t, lg, t0, requested(a0, 1), requested(a1, 2), completed(a0, 3), requested(rival, 4), requested(late, 5))
	st, _ := sqliteStore(t)
	catchUp(t, newRunner(t, lg, st, projections.SignerProjections()))
	ref, err := twophase.NewState(newSignerRig(t).config("s1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []twophase.Fact{requested(a0, 1), requested(a1, 2), completed(a0, 3), requested(rival, 4), requested(late, 5)} {
		ref.Apply(f)
	}
	if len(ref.Events()) != 2 {
		t.Fatalf("the state holds %d events, want 2", len(ref.Events()))
	}
	checkPhases(t, st, ref, "requests")
}
