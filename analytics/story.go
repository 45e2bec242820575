package analytics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/domain"
	"github.com/bridgelog/bridgelog/domain/twophase"
	"github.com/bridgelog/bridgelog/projections"
)

// Kinds of story subjects: what a key names.
const (
	SubjectWithdrawal  = "withdrawal"   // a burn paid on the EVM side, through a batch and a claim
	SubjectDeposit     = "deposit"      // a lock paid by a mint
	SubjectKaspaPayout = "kaspa_payout" // a burn paid on Kaspa by the signing group
	SubjectBatch       = "batch"        // a withdrawal batch, when the key names the batch itself
	SubjectClaim       = "claim"        // a claim whose withdrawal is not on record
	SubjectOther       = "other"        // an event that is no part of a payout (a chain scan, a signer's start)
)

// ErrNoAuditKey: an audit was asked for without a key.
var ErrNoAuditKey = errors.New("no audit key given")

// Story is the whole story of what a key names: for each subject (a key
// may name several, an ambiguous one), its steps in the order they were
// recorded, each with the facts an auditor needs and the keys it links to.
// A key that matches nothing gives a story without subjects.
type Story struct {
	Key      string         `json:"key"`
	Subjects []StorySubject `json:"subjects"`
}

// Empty reports whether the key matched nothing.
func (s Story) Empty() bool { return len(s.Subjects) == 0 }

// Ambiguous reports whether the key names more than one thing.
func (s Story) Ambiguous() bool { return len(s.Subjects) > 1 }

// StorySubject is one thing the key names and everything recorded about it.
type StorySubject struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	// MatchedAs lists the kinds of audit key (projections.Key*) by which
	// the key found this subject.
	MatchedAs []string    `json:"matchedAs"`
	Steps     []StoryStep `json:"steps"`
}

// StoryStep is one recorded event (or, for a signing round, the votes of
// the round gathered from every signer's log).
type StoryStep struct {
	At      time.Time `json:"at"`
	Section string    `json:"section"` // the part of the story: chain, confirmation, batch, anchor, claim, …
	Kind    string    `json:"kind"`    // the event type; "signing.round" for a round's votes
	// Log is the log the event was read from (its topic): several
	// signers' logs may be in one warehouse. Signer names the signer
	// whose log it is, when its own votes say so. A step gathered from
	// every log (a round's votes, the request) has neither.
	Log       string      `json:"log"`
	Signer    string      `json:"signer,omitempty"`
	Partition uint32      `json:"partition"`
	Offset    uint64      `json:"offset"`
	Facts     []StoryFact `json:"facts"`
	Links     []string    `json:"links,omitempty"`     // audit keys of what the step names (transactions, batch, claim, signing event)
	MatchedAs []string    `json:"matchedAs,omitempty"` // the key's kinds, when the key itself found this event
	Explain   string      `json:"explain"`
	order     int64       // recorded ms, for ordering
}

// StoryFact is one named fact of a step, in the order people read them.
type StoryFact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// BuildStory finds the events of key through f and follows the links an
// auditor needs: a withdrawal's batch, anchor and claim; a deposit's mint;
// a burn toward Kaspa's signing event in every signer's log.
func BuildStory(ctx context.Context, f Finder, key string) (Story, error) {
	key = projections.NormalizeAuditKey(key)
	if key == "" {
		return Story{}, ErrNoAuditKey
	}
	g := &gatherer{ctx: ctx, f: f, found: map[string][]AuditMatch{}}
	matches, err := g.find(key)
	if err != nil {
		return Story{}, err
	}
	st := Story{Key: key}
	if len(matches) == 0 {
		return st, nil
	}
	roots, err := g.roots(matches)
	if err != nil {
		return Story{}, err
	}
	matchedAt := map[position][]string{}
	for _, m := range matches {
		matchedAt[posOf(m.AuditRow)] = m.Kinds
	}
	for _, r := range roots {
		sub, err := g.subject(r)
		if err != nil {
			return Story{}, err
		}
		for i := range sub.Steps {
			sub.Steps[i].MatchedAs = matchedAt[position{sub.Steps[i].Log, sub.Steps[i].Partition, sub.Steps[i].Offset}]
		}
		sub.MatchedAs = r.kinds
		st.Subjects = append(st.Subjects, sub)
	}
	return st, nil
}

// position is where an event is on its log.
type position struct {
	topic     string
	partition uint32
	offset    uint64
}

func posOf(r AuditRow) position { return position{r.Topic, r.Partition, r.Offset} }

// root is one subject the key's matches name.
type root struct {
	kind, id string
	ref      domain.LogRef // of a withdrawal, deposit or burn
	signing  twophase.Hash // of a Kaspa payout without a burn on record
	rows     []AuditRow    // of an "other" subject: the matches themselves
	// also are keys the subject was reached through that its own links
	// may not lead back to (a claim whose withdrawal is not on record).
	also  []string
	kinds []string
}

// gatherer runs the lookups of one story, each key once.
type gatherer struct {
	ctx   context.Context
	f     Finder
	found map[string][]AuditMatch
}

func (g *gatherer) find(key string) ([]AuditMatch, error) {
	key = projections.NormalizeAuditKey(key)
	if ms, ok := g.found[key]; ok {
		return ms, nil
	}
	ms, err := g.f.Find(g.ctx, key)
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w", key, err)
	}
	g.found[key] = ms
	return ms, nil
}

// decodeRow decodes an audit row's payload into its domain type; nil for
// a type this binary does not know or a payload that does not decode
// (the row is still shown, by type).
func decodeRow(r AuditRow) any {
	body := projections.NewBody(r.Type)
	if body == nil || r.DecodeError != "" || json.Unmarshal([]byte(r.Payload), body) != nil {
		return nil
	}
	return body
}

// roots turns the key's matches into the subjects they name, in the order
// of their first match, each once.
func (g *gatherer) roots(matches []AuditMatch) ([]root, error) {
	var out []root
	add := func(r root, kinds []string) {
		for i := range out {
			if out[i].kind == r.kind && out[i].id == r.id {
				out[i].kinds = mergeKinds(out[i].kinds, kinds)
				out[i].rows = append(out[i].rows, r.rows...)
				out[i].also = append(out[i].also, r.also...)
				return
			}
		}
		r.kinds = mergeKinds(nil, kinds)
		out = append(out, r)
	}
	for _, m := range matches {
		r, ok, err := g.rootOf(m)
		if err != nil {
			return nil, err
		}
		if ok {
			add(r, m.Kinds)
		}
	}
	return out, nil
}

// rootOf names the subject one match belongs to; false for a match that
// only repeats another's subject (a batch found by one of its leaves).
func (g *gatherer) rootOf(m AuditMatch) (root, bool, error) {
	body := decodeRow(m.AuditRow)
	// Found only as one event of a batch (a batch key finds every leaf's
	// batching and claim): the batch is the subject, not each withdrawal.
	onlyBatchOrLeaf := !hasKind(m.Kinds, projections.KeyAggregate, projections.KeySource, projections.KeyEventID,
		projections.KeyEVMTx, projections.KeyCorrelation)
	if onlyBatchOrLeaf && !hasKind(m.Kinds, projections.KeyLeaf) {
		switch b := body.(type) {
		case *domain.WithdrawalBatched:
			return batchRoot(b.SequenceID, b.BatchID), true, nil
		case *domain.ClaimRequested:
			return batchRoot(b.Settlement.SequenceID(), b.BatchID), true, nil
		}
	}
	if r, ok := flowRoot(body); ok {
		return r, true, nil
	}
	switch b := body.(type) {
	case *domain.BatchCreated:
		if onlyBatchOrLeaf && !hasKind(m.Kinds, projections.KeyBatch) {
			return root{}, false, nil // a leaf's batch: the withdrawal's story tells it
		}
		return batchRoot(b.Settlement.SequenceID(), b.BatchID), true, nil
	case *domain.BatchAnchored:
		return batchRoot(b.Settlement.SequenceID(), b.BatchID), true, nil
	case *domain.BatchAnchorFailed:
		return batchRoot(b.Settlement.SequenceID(), b.BatchID), true, nil
	case *domain.ClaimRequested:
		r := withdrawalRoot(b.LeafInfo.Withdrawal)
		r.also = []string{m.AggregateID}
		return r, true, nil
	case *domain.TxIntent:
		return g.txRoot(b.Purpose, b.Subject)
	case *domain.TxOutcome:
		return g.txRoot(b.Purpose, b.Subject)
	}
	if id, ok := twophase.EventOfAggregate(m.AggregateID); ok {
		return g.signingRoot(id)
	}
	return root{kind: SubjectOther, id: m.AggregateID, rows: []AuditRow{m.AuditRow}}, true, nil
}

// flowRoot names the withdrawal, deposit or burn toward Kaspa an event
// of its own flow is about.
func flowRoot(body any) (root, bool) {
	switch b := body.(type) {
	case *domain.WithdrawalDetected:
		return withdrawalRoot(b.Ref), true
	case *domain.WithdrawalConfirmed:
		return withdrawalRoot(b.Ref), true
	case *domain.WithdrawalBatched:
		return withdrawalRoot(b.Ref), true
	case *domain.WithdrawalExecuted:
		return withdrawalRoot(b.Ref), true
	case *domain.WithdrawalFailed:
		return withdrawalRoot(b.Ref), true
	case *domain.ObservationReorged:
		if b.Withdraw {
			return withdrawalRoot(b.Ref), true
		}
		return depositRoot(b.Ref), true
	case *domain.DepositDetected:
		return depositRoot(b.Ref), true
	case *domain.DepositConfirmed:
		return depositRoot(b.Ref), true
	case *domain.DepositMinted:
		return depositRoot(b.Ref), true
	case *domain.DepositFailed:
		return depositRoot(b.Ref), true
	}
	if ref, ok := burnRefOf(body); ok {
		return burnRoot(ref), true
	}
	return root{}, false
}

func batchRoot(sequenceID string, batchID uint64) root {
	return root{kind: SubjectBatch, id: projections.BatchKey(sequenceID, batchID)}
}

func withdrawalRoot(ref domain.LogRef) root {
	return root{kind: SubjectWithdrawal, id: ref.WithdrawalID(), ref: ref}
}
func depositRoot(ref domain.LogRef) root {
	return root{kind: SubjectDeposit, id: ref.DepositID(), ref: ref}
}
func burnRoot(ref domain.LogRef) root {
	return root{kind: SubjectKaspaPayout, id: ref.WithdrawalToKaspaID(), ref: ref}
}

// txRoot names what a chain transaction served: a mint its deposit, an
// anchor its batch, a claim the withdrawal whose leaf it claims.
func (g *gatherer) txRoot(p domain.Purpose, subject string) (root, bool, error) {
	switch p {
	case domain.PurposeMint:
		if ref, err := domain.ParseLogRef(strings.TrimPrefix(subject, "deposit:")); err == nil {
			return depositRoot(ref), true, nil
		}
	case domain.PurposeAnchor:
		return root{kind: SubjectBatch, id: subject}, true, nil
	case domain.PurposeClaim:
		ms, err := g.find(subject)
		if err != nil {
			return root{}, false, err
		}
		for _, m := range ms {
			if req, ok := decodeRow(m.AuditRow).(*domain.ClaimRequested); ok {
				r := withdrawalRoot(req.LeafInfo.Withdrawal)
				r.also = []string{subject}
				return r, true, nil
			}
		}
		return root{kind: SubjectClaim, id: subject}, true, nil
	}
	return root{kind: SubjectOther, id: subject}, true, nil
}

// signingRoot names the burn a signing event pays, when the burn is on
// record; the signing event alone otherwise.
func (g *gatherer) signingRoot(id twophase.Hash) (root, bool, error) {
	rows, err := g.rowsOf(id.Hex())
	if err != nil {
		return root{}, false, err
	}
	for _, r := range rows {
		src, ok := signingSource(r)
		if !ok {
			continue
		}
		burns, err := g.rowsOf(src.TxHash.Hex())
		if err != nil {
			return root{}, false, err
		}
		for _, b := range burns {
			if ref, ok := burnRef(b); ok && ref.LogIndex == src.LogIndex && twophase.Hash(ref.TxHash) == src.TxHash {
				return burnRoot(ref), true, nil
			}
		}
	}
	return root{kind: SubjectKaspaPayout, id: twophase.EventAggregate(id), signing: id}, true, nil
}

// signingSource is the chain log a signer learnt a signing event from.
func signingSource(r AuditRow) (twophase.SourceRef, bool) {
	switch b := decodeRow(r).(type) {
	case *twophase.EventRequested:
		return b.Event.Source, true
	case *twophase.AdminReinjected:
		return b.Event.Source, true
	}
	return twophase.SourceRef{}, false
}

func burnRef(r AuditRow) (domain.LogRef, bool) { return burnRefOf(decodeRow(r)) }

// burnRefOf is the chain log of a burn toward Kaspa's event.
func burnRefOf(body any) (domain.LogRef, bool) {
	switch b := body.(type) {
	case *domain.WithdrawalToKaspaDetected:
		return b.Ref, true
	case *domain.WithdrawalToKaspaConfirmed:
		return b.Ref, true
	case *domain.WithdrawalToKaspaReorged:
		return b.Ref, true
	}
	return domain.LogRef{}, false
}

// rowsOf is the rows a key finds.
func (g *gatherer) rowsOf(key string) ([]AuditRow, error) {
	ms, err := g.find(key)
	if err != nil {
		return nil, err
	}
	rows := make([]AuditRow, len(ms))
	for i, m := range ms {
		rows[i] = m.AuditRow
	}
	return rows, nil
}

// subject gathers and tells one subject.
func (g *gatherer) subject(r root) (StorySubject, error) {
	sub := StorySubject{Kind: r.kind, ID: r.id}
	var rows []AuditRow
	var err error
	switch r.kind {
	case SubjectWithdrawal:
		rows, err = g.withdrawalRows(r.ref, r.also)
	case SubjectDeposit:
		rows, err = g.rowsOf(r.id)
	case SubjectBatch:
		rows, err = g.rowsOf(r.id)
	case SubjectClaim:
		rows, err = g.rowsOf(r.id)
	case SubjectKaspaPayout:
		return g.kaspaSubject(sub, r)
	default:
		rows = r.rows
	}
	if err != nil {
		return sub, err
	}
	for _, row := range dedupeRows(rows) {
		sub.Steps = append(sub.Steps, stepOf(row))
	}
	sortSteps(sub.Steps)
	return sub, nil
}

// withdrawalRows: the withdrawal's own events, its batch's creation and
// anchor, its leaf's claim, and what the keys in also find (the claim it
// was reached through, told even when the withdrawal is not on record).
func (g *gatherer) withdrawalRows(ref domain.LogRef, also []string) ([]AuditRow, error) {
	own, err := g.rowsOf(ref.WithdrawalID())
	if err != nil {
		return nil, err
	}
	rows := append([]AuditRow(nil), own...)
	for _, key := range also {
		more, err := g.rowsOf(key)
		if err != nil {
			return nil, err
		}
		rows = append(rows, more...)
	}
	for _, r := range own {
		b, ok := decodeRow(r).(*domain.WithdrawalBatched)
		if !ok {
			continue
		}
		batchKey := projections.BatchKey(b.SequenceID, b.BatchID)
		batch, err := g.rowsOf(batchKey)
		if err != nil {
			return nil, err
		}
		claimID := ""
		for _, br := range batch {
			switch e := decodeRow(br).(type) {
			case *domain.ClaimRequested:
				if e.LeafInfo.Leaf == b.Leaf {
					rows, claimID = append(rows, br), br.AggregateID
				}
			case *domain.BatchCreated:
				if e.BatchID == b.BatchID && claimID == "" {
					claimID = domain.ClaimID(e.Settlement, b.Leaf)
				}
				rows = append(rows, br)
			case *domain.BatchAnchored, *domain.BatchAnchorFailed, *domain.TxIntent, *domain.TxOutcome:
				rows = append(rows, br) // the anchor's transactions and result
			}
		}
		if claimID != "" {
			claim, err := g.rowsOf(claimID)
			if err != nil {
				return nil, err
			}
			rows = append(rows, claim...)
		}
	}
	return rows, nil
}

// dedupeRows keeps each event once, in the order recorded.
func dedupeRows(rows []AuditRow) []AuditRow {
	seen := map[position]bool{}
	var out []AuditRow
	for _, r := range rows {
		if p := posOf(r); !seen[p] {
			seen[p] = true
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, CompareRecorded)
	return out
}

func sortSteps(steps []StoryStep) {
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].order < steps[j].order })
}

func hasKind(kinds []string, want ...string) bool {
	for _, k := range kinds {
		for _, w := range want {
			if k == w {
				return true
			}
		}
	}
	return false
}

func mergeKinds(have, more []string) []string {
	for _, k := range more {
		if !hasKind(have, k) {
			have = append(have, k)
		}
	}
	return have
}
