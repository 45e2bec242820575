package analytics

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// KindSigningRound is the kind of the step that gathers one round's
// starts and votes from every signer's log.
const KindSigningRound = "signing.round"

// kaspaSubject tells a Kaspa payout: the burn's chain log and
// confirmation, then its signing event as every signer recorded it.
func (g *gatherer) kaspaSubject(sub StorySubject, r root) (StorySubject, error) {
	var rows []AuditRow
	ids := []twophase.Hash{}
	if !r.signing.IsZero() {
		ids = append(ids, r.signing)
	} else {
		own, err := g.rowsOf(r.id)
		if err != nil {
			return sub, err
		}
		byTx, err := g.rowsOf(r.ref.TxHash.Hex())
		if err != nil {
			return sub, err
		}
		for _, row := range append(append([]AuditRow(nil), own...), byTx...) {
			if ref, ok := burnRef(row); ok && ref == r.ref {
				rows = append(rows, row)
			}
			src, ok := signingSource(row)
			if !ok || src.TxHash != twophase.Hash(r.ref.TxHash) || src.LogIndex != r.ref.LogIndex {
				continue
			}
			if id, ok := twophase.EventOfAggregate(row.AggregateID); ok && !containsHash(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	for _, row := range dedupeRows(rows) {
		sub.Steps = append(sub.Steps, stepOf(row))
	}
	for _, id := range ids {
		facts, err := g.rowsOf(id.Hex())
		if err != nil {
			return sub, err
		}
		var own []AuditRow
		for _, f := range facts {
			if f.AggregateID == twophase.EventAggregate(id) {
				own = append(own, f)
			}
		}
		sub.Steps = append(sub.Steps, signingSteps(dedupeRows(own))...)
	}
	sortSteps(sub.Steps)
	return sub, nil
}

func containsHash(hs []twophase.Hash, h twophase.Hash) bool {
	for _, x := range hs {
		if x == h {
			return true
		}
	}
	return false
}

// signing is what one signing event's facts say, across signers' logs.
type signing struct {
	signers   map[string]string // log -> the signer whose log it is
	members   map[twophase.PeerID]bool
	templates map[twophase.Hash]templateFacts
	steps     []StoryStep
	rounds    map[[2]uint32]*roundVotes
	requested int // index of the request's step, -1 before it
}

// templateFacts is what a proposed template says of the payout.
type templateFacts struct {
	inputs, outputs int
	fee             uint64
	err             error
}

// roundVotes gathers a round's starts and votes from every log.
type roundVotes struct {
	step     int
	triggers []string
	voted    []twophase.PeerID // in the order first seen
	votes    map[twophase.PeerID]*twophase.VoteAccepted
	rejected []string
	equivoc  []string
}

// signingSteps tells one signing event's facts, from every signer's log,
// in the order recorded: the request once, each round's votes once, and
// each signer's own decisions (commit, signature, submission) as its log
// holds them.
func signingSteps(rows []AuditRow) []StoryStep {
	s := &signing{signers: map[string]string{}, members: map[twophase.PeerID]bool{},
		templates: map[twophase.Hash]templateFacts{}, rounds: map[[2]uint32]*roundVotes{}, requested: -1}
	bodies := make([]any, len(rows))
	for i, r := range rows {
		bodies[i] = decodeRow(r)
		s.learn(r, bodies[i])
	}
	for i, r := range rows {
		s.tell(r, bodies[i])
	}
	for _, rv := range s.rounds {
		s.tellRound(rv)
	}
	return s.steps
}

// learn notes who owns each log, the group's members seen and the
// templates proposed, before any step is told.
func (s *signing) learn(r AuditRow, body any) {
	switch b := body.(type) {
	case *twophase.VoteAccepted:
		s.members[b.Voter] = true
		if b.Own {
			s.signers[r.Topic] = string(b.Voter)
		}
		if _, ok := s.templates[b.Hash]; !ok && !b.NoVote {
			s.templates[b.Hash] = templateOf(b.Envelope)
		}
	case *twophase.VoteRejected:
		s.members[b.Sender] = true // its envelope passed the group's checks: a member
	case *twophase.Committed:
		for _, v := range b.Voters {
			s.members[v] = true
		}
	case *twophase.LockCertAccepted:
		for _, v := range b.Signers {
			s.members[v] = true
		}
	case *twophase.PayoutSubmitted:
		for _, v := range b.Signers {
			s.members[v] = true
		}
	}
}

func templateOf(envelope []byte) templateFacts {
	p := twophase.DefaultParams()
	prop, err := twophase.StoredProposal(envelope, p)
	if err != nil {
		return templateFacts{err: err}
	}
	t, err := twophase.DecodeTemplate(prop.Template, p.MaxUTXOsPerProposal, p.MaxOutputsPerProposal)
	if err != nil {
		return templateFacts{err: err}
	}
	fee, err := t.Fee()
	return templateFacts{inputs: len(t.Inputs), outputs: len(t.Outputs), fee: fee, err: err}
}

// who names the signer of a log in words.
func (s *signing) who(log string) string {
	if id := s.signers[log]; id != "" {
		return "signer " + id
	}
	return "the signer of log " + log
}

func (s *signing) newStep(r AuditRow, section string) *StoryStep {
	s.steps = append(s.steps, StoryStep{At: recordedAt(r), Section: section, Kind: r.Type, Log: r.Topic,
		Signer: s.signers[r.Topic], Partition: r.Partition, Offset: r.Offset, order: r.RecordedMs})
	return &s.steps[len(s.steps)-1]
}

// gathered marks a step told from several logs' facts: it is no one
// log's event, so it names no log, signer or position.
func (st *StoryStep) gathered() {
	st.Log, st.Signer, st.Partition, st.Offset = "", "", 0, 0
}

func (s *signing) round(epoch, round uint32, r AuditRow) *roundVotes {
	k := [2]uint32{epoch, round}
	if rv := s.rounds[k]; rv != nil {
		return rv
	}
	st := s.newStep(r, SectionSigning)
	st.Kind = KindSigningRound
	st.gathered()
	st.add("round", fmt.Sprintf("%d.%d", epoch, round))
	rv := &roundVotes{step: len(s.steps) - 1, votes: map[twophase.PeerID]*twophase.VoteAccepted{}}
	s.rounds[k] = rv
	return rv
}

func (s *signing) tell(r AuditRow, body any) {
	switch b := body.(type) {
	case *twophase.EventRequested:
		s.tellRequested(r, b.Event, b.ID, b.Via)
	case *twophase.AdminReinjected:
		s.tellRequested(r, b.Event, b.ID, "admin by "+b.Operator)
	case *twophase.RoundStarted:
		rv := s.round(b.Epoch, b.Round, r)
		if t := string(b.Trigger); !hasKind(rv.triggers, t) {
			rv.triggers = append(rv.triggers, t)
		}
	case *twophase.VoteAccepted:
		rv := s.round(b.Epoch, b.Round, r)
		if _, ok := rv.votes[b.Voter]; !ok {
			rv.votes[b.Voter] = b
			rv.voted = append(rv.voted, b.Voter)
		}
	case *twophase.VoteRejected:
		rv := s.round(b.Epoch, b.Round, r)
		why := string(b.Reason)
		if b.Detail != "" {
			why += " (" + b.Detail + ")"
		}
		rv.rejected = append(rv.rejected, fmt.Sprintf("%s's vote for %s refused by %s: %s", b.Sender, short(b.Hash),
			s.who(r.Topic), why))
	case *twophase.Equivocation:
		rv := s.round(b.Epoch, b.Round, r)
		rv.equivoc = append(rv.equivoc, fmt.Sprintf("%s voted for %s and then %s", b.Voter, short(b.FirstHash), short(b.SecondHash)))
	default:
		s.tellDecision(r, body)
	}
}

func (s *signing) tellRequested(r AuditRow, ev twophase.SigningEvent, id twophase.Hash, via string) {
	learnt := fmt.Sprintf("%s (%s)", strings.TrimPrefix(s.who(r.Topic), "signer "), via)
	if s.requested >= 0 {
		st := &s.steps[s.requested]
		st.Facts[len(st.Facts)-1].Value += ", " + learnt // learnt_by is the last fact
		st.Explain += ", " + learnt
		return
	}
	st := s.newStep(r, SectionSigning)
	st.gathered()
	st.add("signing_event", id.Hex())
	st.add("stream", ev.Stream)
	st.add("nonce", u64(ev.Nonce))
	st.add("destination", ev.Destination)
	st.add("amount_sompi", u64(ev.Amount))
	st.add("source", fmt.Sprintf("%s tx %s log %d block %d", ev.Source.Chain, ev.Source.TxHash.Hex(), ev.Source.LogIndex, ev.Source.Block))
	st.add("learnt_by", learnt)
	st.link(id.Hex(), ev.Source.TxHash.Hex())
	st.Explain = fmt.Sprintf("signing event %s asks to pay %d sompi to %s (nonce %d of %s); learnt by %s",
		short(id), ev.Amount, ev.Destination, ev.Nonce, ev.Stream, learnt)
	s.requested = len(s.steps) - 1
}

// tellRound fills a round's step: who voted for which template, who cast
// no vote and why, what was refused.
func (s *signing) tellRound(rv *roundVotes) {
	st := &s.steps[rv.step]
	st.add("started_on", strings.Join(rv.triggers, ", "))
	byHash := map[twophase.Hash][]string{}
	var hashes []twophase.Hash
	var none []string
	for _, voter := range rv.voted {
		v := rv.votes[voter]
		if v.NoVote {
			none = append(none, fmt.Sprintf("%s (%s)", voter, v.Reason))
			continue
		}
		if _, ok := byHash[v.Hash]; !ok {
			hashes = append(hashes, v.Hash)
		}
		byHash[v.Hash] = append(byHash[v.Hash], string(voter))
	}
	var said []string
	for i, h := range hashes {
		st.add("template", fmt.Sprintf("%s voted by %s; %s", h.Hex(), strings.Join(byHash[h], ", "), s.templateWords(h)))
		if i == 0 {
			said = append(said, fmt.Sprintf("%s voted for template %s", peers(byHash[h]), short(h)))
		} else {
			said = append(said, fmt.Sprintf("%s for %s", strings.Join(byHash[h], " and "), short(h)))
		}
	}
	if len(none) > 0 {
		st.add("no_vote", strings.Join(none, ", "))
		said = append(said, "no vote from "+strings.Join(none, ", "))
	}
	if len(rv.rejected) > 0 {
		st.add("refused", strings.Join(rv.rejected, "; "))
		said = append(said, strings.Join(rv.rejected, "; "))
	}
	if len(rv.equivoc) > 0 {
		st.add("equivocation", strings.Join(rv.equivoc, "; "))
		said = append(said, "equivocation: "+strings.Join(rv.equivoc, "; "))
	}
	if len(said) == 0 {
		said = append(said, "no vote is on record")
	}
	st.Explain = fmt.Sprintf("round %s: %s", st.Facts[0].Value, strings.Join(said, "; "))
}

// templateWords: a template's inputs, outputs and fee, as its proposal says.
func (s *signing) templateWords(h twophase.Hash) string {
	t, ok := s.templates[h]
	switch {
	case !ok:
		return "template not on record"
	case t.err != nil:
		return "template unreadable: " + t.err.Error()
	}
	return fmt.Sprintf("%d inputs, %d outputs, fee %d sompi", t.inputs, t.outputs, t.fee)
}

// fee is a template's fee in words, or "" when no proposal of it is on record.
func (s *signing) fee(h twophase.Hash) string {
	if t, ok := s.templates[h]; ok && t.err == nil {
		return strconv.FormatUint(t.fee, 10)
	}
	return ""
}

// tellDecision tells a signer's own decision as its log records it.
func (s *signing) tellDecision(r AuditRow, body any) {
	who := s.who(r.Topic)
	switch b := body.(type) {
	case *twophase.EventRefused:
		st := s.newStep(r, SectionSigning)
		st.add("reason", string(b.Reason))
		st.add("detail", b.Detail)
		st.Explain = fmt.Sprintf("%s refused the event: %s (%s)", who, b.Reason, b.Detail)
	case *twophase.Committed:
		s.tellCommitted(r, b, who)
	case *twophase.LockCertAccepted:
		st := s.newStep(r, SectionSigning)
		st.add("round", fmt.Sprintf("%d.%d", b.Epoch, b.Round))
		st.add("template", b.TemplateHash.Hex())
		st.add("lock_signers", peerList(b.Signers))
		st.add("outpoints", strconv.Itoa(len(b.Outpoints)))
		st.Explain = fmt.Sprintf("%s holds the lock certificate of template %s: quorum %d of %d (%s), %d outpoints reserved",
			who, short(b.TemplateHash), len(b.Signers), len(s.members), peerList(b.Signers), len(b.Outpoints))
	case *twophase.TemplateSigned:
		st := s.newStep(r, SectionSigning)
		st.add("round", u64(uint64(b.Round)))
		st.add("template", b.Hash.Hex())
		st.add("payout_tx", b.TxID.Hex())
		st.Explain = fmt.Sprintf("%s signed template %s (payout %s)", who, short(b.Hash), short(b.TxID))
	case *twophase.RoundFailed:
		st := s.newStep(r, SectionSigning)
		st.add("round", fmt.Sprintf("%d.%d", b.Epoch, b.Round))
		st.add("reason", string(b.Reason))
		st.add("detail", b.Detail)
		if !b.Hash.IsZero() {
			st.add("template_given_up", b.Hash.Hex())
		}
		if b.RetryAtNs > 0 {
			st.add("retry_at", fromUnixNano(b.RetryAtNs))
		}
		st.Explain = fmt.Sprintf("round %d.%d failed for %s: %s", b.Epoch, b.Round, who, b.Reason)
		if b.Detail != "" {
			st.Explain += " (" + b.Detail + ")"
		}
	case *twophase.CommitConflict:
		st := s.newStep(r, SectionSigning)
		st.add("local_template", b.LocalHash.Hex())
		st.add("remote_template", b.RemoteHash.Hex())
		st.add("from", string(b.Sender))
		st.Explain = fmt.Sprintf("%s was shown a commit of %s by %s, but holds %s: commitments never switch",
			who, short(b.RemoteHash), b.Sender, short(b.LocalHash))
	case *twophase.Abandoned:
		st := s.newStep(r, SectionSigning)
		st.add("round", u64(uint64(b.Round)))
		st.add("trigger", string(b.Trigger))
		st.add("detail", b.Detail)
		st.Explain = fmt.Sprintf("%s abandoned the event after round %d (%s): %s; an operator decides (reset or re-inject)",
			who, b.Round, b.Trigger, b.Detail)
	case *twophase.AdminReset:
		st := s.newStep(r, SectionSigning)
		st.add("epoch", u64(uint64(b.Epoch)))
		st.add("operator", b.Operator)
		st.add("reason", b.Reason)
		st.Explain = fmt.Sprintf("operator %s reset the event to epoch %d on %s: %s", b.Operator, b.Epoch, who, b.Reason)
	default:
		s.tellPayout(r, body, who)
	}
}

func (s *signing) tellCommitted(r AuditRow, b *twophase.Committed, who string) {
	st := s.newStep(r, SectionSigning)
	st.add("round", fmt.Sprintf("%d.%d", b.Epoch, b.Round))
	st.add("template", b.Hash.Hex())
	st.add("trigger", string(b.Trigger))
	st.add("quorum", fmt.Sprintf("%d of %d: %s", len(b.Voters), len(s.members), peerList(b.Voters)))
	st.add("from", string(b.From))
	st.add("fee_sompi", s.fee(b.Hash))
	how := fmt.Sprintf("quorum %d of %d (%s) committed", len(b.Voters), len(s.members), peerList(b.Voters))
	if b.Trigger == twophase.TriggerFastForward {
		how = fmt.Sprintf("on %s's evidence of quorum %d of %d (%s)", b.From, len(b.Voters), len(s.members), peerList(b.Voters))
	}
	st.Explain = fmt.Sprintf("%s committed template %s in round %d.%d: %s", who, short(b.Hash), b.Epoch, b.Round, how)
	if f := s.fee(b.Hash); f != "" {
		st.Explain += "; fee " + f + " sompi"
	}
}

// tellPayout: the Kaspa transaction, its submission, the ledger's answer
// and its confirmation.
func (s *signing) tellPayout(r AuditRow, body any, who string) {
	switch b := body.(type) {
	case *twophase.PayoutSubmitted:
		st := s.newStep(r, SectionPayout)
		st.add("payout_tx", b.TxID.Hex())
		st.add("template", b.Hash.Hex())
		st.add("attempt", strconv.Itoa(b.Attempt))
		st.add("signatures_of", peerList(b.Signers))
		st.add("fee_sompi", s.fee(b.Hash))
		st.add("bytes", strconv.Itoa(len(b.Tx)))
		st.link(b.TxID.Hex())
		st.Explain = fmt.Sprintf("%s submitted payout %s (attempt %d) with the signatures of %s", who, b.TxID.Hex(), b.Attempt, peerList(b.Signers))
		if f := s.fee(b.Hash); f != "" {
			st.Explain += "; fee " + f + " sompi"
		}
	case *twophase.PayoutOutcome:
		st := s.newStep(r, SectionPayout)
		st.add("payout_tx", b.TxID.Hex())
		st.add("attempt", strconv.Itoa(b.Attempt))
		st.add("accepted", strconv.FormatBool(b.Accepted))
		st.add("error", b.Error)
		st.Explain = fmt.Sprintf("the ledger accepted payout %s (attempt %d, submitted by %s)", short(b.TxID), b.Attempt, who)
		if !b.Accepted {
			st.Explain = fmt.Sprintf("the ledger refused payout %s (attempt %d, submitted by %s): %s", short(b.TxID), b.Attempt, who, b.Error)
		}
	case *twophase.Completed:
		st := s.newStep(r, SectionPayout)
		st.add("payout_tx", b.TxID.Hex())
		st.add("template", b.Hash.Hex())
		st.add("accepting_daa_score", u64(b.DAAScore))
		st.link(b.TxID.Hex())
		st.Explain = fmt.Sprintf("payout %s is confirmed (accepted at DAA score %d), as %s records", short(b.TxID), b.DAAScore, who)
	default:
		st := s.newStep(r, SectionSigning)
		st.add("aggregate", r.AggregateID)
		st.Explain = fmt.Sprintf("%s recorded %s", who, r.Type)
	}
}

// short is a hash as people glance at it: 0x and its first 8 digits.
func short(h twophase.Hash) string { return "0x" + h.Short() + "…" }

func peerList(ps []twophase.PeerID) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = string(p)
	}
	return strings.Join(out, ", ")
}

// peers names voters in words: "signer A", "signers A and B", "signers A, B and C".
func peers(ps []string) string {
	if len(ps) == 1 {
		return "signer " + ps[0]
	}
	return "signers " + strings.Join(ps[:len(ps)-1], ", ") + " and " + ps[len(ps)-1]
}

func fromUnixNano(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
