package twophase

import (
	"fmt"
	"strings"
	"time"
)

// Event type names of the signer's log. They are part of the log format:
// never rename one.
const (
	TypeSignerStarted     = "signing.signer_started"
	TypeEventRequested    = "signing.event_requested"
	TypeEventRefused      = "signing.event_refused"
	TypeRoundStarted      = "signing.round_started"
	TypeVoteAccepted      = "signing.vote_accepted"
	TypeVoteRejected      = "signing.vote_rejected"
	TypeEquivocation      = "signing.equivocation"
	TypeCommitted         = "signing.committed"
	TypeTemplateSigned    = "signing.template_signed"
	TypeRoundFailed       = "signing.round_failed"
	TypeCommitConflict    = "signing.commit_conflict"
	TypePayoutSubmitted   = "signing.payout_submitted"
	TypePayoutOutcome     = "signing.payout_outcome"
	TypeCompleted         = "signing.completed"
	TypeAbandoned         = "signing.abandoned"
	TypeMessageRejected   = "signing.message_rejected"
	TypeAdminReset        = "signing.admin_reset"
	TypeAdminReinjected   = "signing.admin_reinjected"
	TypeLockCertAccepted  = "signing.lock_cert_accepted"
	TypePayoutVoided      = "signing.payout_voided"
	TypeRefused           = "signing.refused"
	TypeRefusalSigned     = "signing.refusal_signed"
	TypeRefusalCertified  = "signing.refusal_certified"
	TypePrecommitAccepted = "signing.precommit_accepted"
	aggregatePrefix       = "signing:"
	signerAggregatePrefix = "signer:"
)

// Fact is one event of a signer's log: a domain event (see
// [github.com/bridgelog/bridgelog/domain.Event]) that [State.Apply] folds.
type Fact interface {
	EventType() string
	SourceKey() string
	AggregateID() string
}

// EventAggregate is the aggregate id (and partition key) of everything a
// signer records about one signing event.
func EventAggregate(id Hash) string { return aggregatePrefix + id.Hex() }

// EventOfAggregate is the signing event an aggregate id names, if it is
// one ([EventAggregate]'s inverse).
func EventOfAggregate(aggregate string) (Hash, bool) {
	s, ok := strings.CutPrefix(aggregate, aggregatePrefix)
	if !ok {
		return Hash{}, false
	}
	id, err := ParseHash(s)
	return id, err == nil
}

func eventKey(id Hash, rest string, a ...any) string {
	return EventAggregate(id) + "/" + fmt.Sprintf(rest, a...)
}

// SignerStarted: the signer started its Session-th session. Sessions
// increase, so peers drop envelopes of earlier sessions as replays.
type SignerStarted struct {
	Signer  PeerID `msgpack:"signer" json:"signer"`
	Session uint64 `msgpack:"session" json:"session"`
	AtNs    int64  `msgpack:"at" json:"at"`
}

func (e SignerStarted) EventType() string { return TypeSignerStarted }
func (e SignerStarted) SourceKey() string {
	return fmt.Sprintf("%s%s/session/%d", signerAggregatePrefix, e.Signer, e.Session)
}
func (e SignerStarted) AggregateID() string { return signerAggregatePrefix + string(e.Signer) }

// EventRequested: the signer learnt a signing event from its own source
// (its chain view, an authenticated RPC request, an operator). Only such
// events are ever proposed, voted on or signed: this is the event's
// source proof.
type EventRequested struct {
	Event SigningEvent `msgpack:"event" json:"event"`
	ID    Hash         `msgpack:"id" json:"id"`
	Via   string       `msgpack:"via" json:"via"` // "source", "rpc", "admin"
	// Origin is who made the request on the source (a burn's withdrawer,
	// 0x-hex), when the source said: a refusal certificate names it.
	Origin string `msgpack:"origin,omitempty" json:"origin,omitempty"`
	AtNs   int64  `msgpack:"at" json:"at"`
}

func (e EventRequested) EventType() string   { return TypeEventRequested }
func (e EventRequested) SourceKey() string   { return eventKey(e.ID, "requested") }
func (e EventRequested) AggregateID() string { return EventAggregate(e.ID) }

// EventRefused: a requested event that the signer will not act on: its
// stream nonce belongs to another event, or it is a reserve event this
// group would not make. (An event the group will never pay is requested
// and then [Refused].)
type EventRefused struct {
	Event  SigningEvent `msgpack:"event" json:"event"`
	ID     Hash         `msgpack:"id" json:"id"`
	Reason Reason       `msgpack:"reason" json:"reason"`
	Detail string       `msgpack:"detail" json:"detail"`
	AtNs   int64        `msgpack:"at" json:"at"`
}

func (e EventRefused) EventType() string   { return TypeEventRefused }
func (e EventRefused) SourceKey() string   { return eventKey(e.ID, "refused/%s", e.Reason) }
func (e EventRefused) AggregateID() string { return EventAggregate(e.ID) }

// RoundStarted: the event entered Proposing in Round.
type RoundStarted struct {
	EventID Hash    `msgpack:"event_id" json:"eventId"`
	Epoch   uint32  `msgpack:"epoch" json:"epoch"`
	Round   uint32  `msgpack:"round" json:"round"`
	Trigger Trigger `msgpack:"trigger" json:"trigger"`
	AtNs    int64   `msgpack:"at" json:"at"`
}

func (e RoundStarted) EventType() string { return TypeRoundStarted }
func (e RoundStarted) SourceKey() string {
	return eventKey(e.EventID, "round/%d.%d/started", e.Epoch, e.Round)
}
func (e RoundStarted) AggregateID() string { return EventAggregate(e.EventID) }

// VoteAccepted: Voter's vote in Round was checked and stored: a proposal
// for Hash, or no vote (NoVote set) with its reason. Envelope is the
// voter's signed message, kept as evidence. Own marks the signer's own
// vote, recorded before it is sent.
type VoteAccepted struct {
	EventID  Hash   `msgpack:"event_id" json:"eventId"`
	Epoch    uint32 `msgpack:"epoch" json:"epoch"`
	Round    uint32 `msgpack:"round" json:"round"`
	Voter    PeerID `msgpack:"voter" json:"voter"`
	Hash     Hash   `msgpack:"hash" json:"hash"`
	NoVote   bool   `msgpack:"no_vote,omitempty" json:"noVote,omitempty"`
	Reason   Reason `msgpack:"reason,omitempty" json:"reason,omitempty"`
	Own      bool   `msgpack:"own,omitempty" json:"own,omitempty"`
	Envelope []byte `msgpack:"envelope" json:"envelope"`
	AtNs     int64  `msgpack:"at" json:"at"`
}

func (e VoteAccepted) EventType() string { return TypeVoteAccepted }
func (e VoteAccepted) SourceKey() string {
	return eventKey(e.EventID, "vote/%d.%d/%s", e.Epoch, e.Round, e.Voter)
}
func (e VoteAccepted) AggregateID() string { return EventAggregate(e.EventID) }

// PrecommitAccepted: Voter's Profile B precommit in Round was checked
// and stored: its lock signature of the lock message of template Hash,
// or nil (Nil set). Envelope is the voter's signed message. Own marks
// the signer's own precommit, recorded before it is sent: it is what the
// signer is locked on, after a restart too.
type PrecommitAccepted struct {
	EventID  Hash   `msgpack:"event_id" json:"eventId"`
	Epoch    uint32 `msgpack:"epoch" json:"epoch"`
	Round    uint32 `msgpack:"round" json:"round"`
	Voter    PeerID `msgpack:"voter" json:"voter"`
	Hash     Hash   `msgpack:"hash" json:"hash"`
	Nil      bool   `msgpack:"nil,omitempty" json:"nil,omitempty"`
	Own      bool   `msgpack:"own,omitempty" json:"own,omitempty"`
	Envelope []byte `msgpack:"envelope" json:"envelope"`
	AtNs     int64  `msgpack:"at" json:"at"`
}

func (e PrecommitAccepted) EventType() string { return TypePrecommitAccepted }
func (e PrecommitAccepted) SourceKey() string {
	return eventKey(e.EventID, "precommit/%d.%d/%s", e.Epoch, e.Round, e.Voter)
}
func (e PrecommitAccepted) AggregateID() string { return EventAggregate(e.EventID) }

// VoteRejected: a vote (proposal or no-vote) that failed a check, with
// the reason; nothing of it was stored as a vote.
type VoteRejected struct {
	EventID Hash   `msgpack:"event_id" json:"eventId"`
	Epoch   uint32 `msgpack:"epoch" json:"epoch"`
	Round   uint32 `msgpack:"round" json:"round"`
	Sender  PeerID `msgpack:"sender" json:"sender"`
	Hash    Hash   `msgpack:"hash" json:"hash"`
	Reason  Reason `msgpack:"reason" json:"reason"`
	Detail  string `msgpack:"detail" json:"detail"`
	Digest  Hash   `msgpack:"digest" json:"digest"` // of the envelope, so each distinct rejection is its own fact
	AtNs    int64  `msgpack:"at" json:"at"`
}

func (e VoteRejected) EventType() string { return TypeVoteRejected }
func (e VoteRejected) SourceKey() string {
	return eventKey(e.EventID, "rejected/%s/%s", e.Sender, e.Digest.Short())
}
func (e VoteRejected) AggregateID() string { return EventAggregate(e.EventID) }

// Equivocation: Voter sent two different votes for one round; the first
// stands, the second (Envelope) is kept as proof. Recorded once per
// voter, event, epoch and round: further votes of that slot are only
// counted (older logs may hold several).
type Equivocation struct {
	EventID    Hash   `msgpack:"event_id" json:"eventId"`
	Epoch      uint32 `msgpack:"epoch" json:"epoch"`
	Round      uint32 `msgpack:"round" json:"round"`
	Voter      PeerID `msgpack:"voter" json:"voter"`
	FirstHash  Hash   `msgpack:"first_hash" json:"firstHash"`
	SecondHash Hash   `msgpack:"second_hash" json:"secondHash"`
	// Precommit: two Profile B precommits of the round, not two prevotes.
	Precommit bool   `msgpack:"precommit,omitempty" json:"precommit,omitempty"`
	Envelope  []byte `msgpack:"envelope" json:"envelope"`
	AtNs      int64  `msgpack:"at" json:"at"`
}

func (e Equivocation) EventType() string { return TypeEquivocation }
func (e Equivocation) SourceKey() string {
	if e.Precommit {
		return eventKey(e.EventID, "equivocation/%d.%d/%s/precommit/%s", e.Epoch, e.Round, e.Voter, e.SecondHash.Short())
	}
	return eventKey(e.EventID, "equivocation/%d.%d/%s/%s", e.Epoch, e.Round, e.Voter, e.SecondHash.Short())
}
func (e Equivocation) AggregateID() string { return EventAggregate(e.EventID) }

// Committed: the signer locked the event to Hash, on a quorum of Round's
// votes it holds (Trigger quorum) or on a peer's verified evidence
// (Trigger fast_forward, From the peer). Voters are the quorum.
type Committed struct {
	EventID  Hash     `msgpack:"event_id" json:"eventId"`
	Epoch    uint32   `msgpack:"epoch" json:"epoch"`
	Round    uint32   `msgpack:"round" json:"round"`
	Hash     Hash     `msgpack:"hash" json:"hash"`
	Trigger  Trigger  `msgpack:"trigger" json:"trigger"`
	From     PeerID   `msgpack:"from,omitempty" json:"from,omitempty"`
	Voters   []PeerID `msgpack:"voters" json:"voters"`
	Evidence [][]byte `msgpack:"evidence,omitempty" json:"evidence,omitempty"` // the quorum's envelopes, on a fast-forward
	// InRound is the signer's round when it committed: a commit given up
	// (its inputs failed revalidation) may be made again in a later round.
	InRound uint32 `msgpack:"in_round,omitempty" json:"inRound,omitempty"`
	AtNs    int64  `msgpack:"at" json:"at"`
}

func (e Committed) EventType() string { return TypeCommitted }

// LockCertAccepted (Profile B): the signer holds a valid lock certificate
// for the event (formed from its own quorum of lock signatures, or a
// peer's it verified): its outpoints are reserved until the event is
// completed or abandoned. The Committed that follows moves the event.
type LockCertAccepted struct {
	EventID      Hash       `msgpack:"event_id" json:"eventId"`
	Epoch        uint32     `msgpack:"epoch" json:"epoch"`
	Round        uint32     `msgpack:"round" json:"round"`
	Anchor       uint64     `msgpack:"anchor" json:"anchor"`
	TemplateHash Hash       `msgpack:"template_hash" json:"templateHash"`
	Outpoints    []Outpoint `msgpack:"outpoints" json:"outpoints"`
	Signers      []PeerID   `msgpack:"signers" json:"signers"`
	Cert         []byte     `msgpack:"cert" json:"cert"`
	// InRound is the signer's round when it accepted the certificate: a
	// commit given up may be made again on the same certificate later.
	InRound uint32 `msgpack:"in_round,omitempty" json:"inRound,omitempty"`
	AtNs    int64  `msgpack:"at" json:"at"`
}

func (e LockCertAccepted) EventType() string { return TypeLockCertAccepted }
func (e LockCertAccepted) SourceKey() string {
	return eventKey(e.EventID, "lock-cert/%d.%d/%s/in/%d", e.Epoch, e.Round, e.TemplateHash.Short(), e.InRound)
}
func (e LockCertAccepted) AggregateID() string { return EventAggregate(e.EventID) }
func (e Committed) SourceKey() string {
	return eventKey(e.EventID, "committed/%d.%d/%s/in/%d", e.Epoch, e.Round, e.Hash.Short(), e.InRound)
}
func (e Committed) AggregateID() string { return EventAggregate(e.EventID) }

// TemplateSigned: the signer signed template Hash of the event. Written
// once per event and count of voided payouts: the source key is the
// event's and After's alone, so a second signature of anything before a
// PayoutVoided would be a conflict on the log.
type TemplateSigned struct {
	EventID   Hash   `msgpack:"event_id" json:"eventId"`
	Round     uint32 `msgpack:"round" json:"round"`
	Hash      Hash   `msgpack:"hash" json:"hash"`
	TxID      Hash   `msgpack:"txid" json:"txid"`
	Signature []byte `msgpack:"signature" json:"signature"`
	// After is how many of this signer's signed payouts of the event were
	// voided before this signature (0: its first).
	After uint32 `msgpack:"after,omitempty" json:"after,omitempty"`
	AtNs  int64  `msgpack:"at" json:"at"`
}

func (e TemplateSigned) EventType() string { return TypeTemplateSigned }
func (e TemplateSigned) SourceKey() string {
	if e.After == 0 {
		return eventKey(e.EventID, "signed") // the key of logs written before voids existed
	}
	return eventKey(e.EventID, "signed/after-void/%d", e.After)
}
func (e TemplateSigned) AggregateID() string { return EventAggregate(e.EventID) }

// RoundFailed: Round ended without a usable commit; the next round starts
// at RetryAtNs.
type RoundFailed struct {
	EventID Hash   `msgpack:"event_id" json:"eventId"`
	Epoch   uint32 `msgpack:"epoch" json:"epoch"`
	Round   uint32 `msgpack:"round" json:"round"`
	// Hash is the committed template given up, when the round failed
	// after a commit (its inputs failed revalidation, or it can never be
	// accepted).
	Hash      Hash   `msgpack:"hash,omitempty" json:"hash,omitempty"`
	Reason    Reason `msgpack:"reason" json:"reason"`
	Detail    string `msgpack:"detail" json:"detail"`
	RetryAtNs int64  `msgpack:"retry_at" json:"retryAt"`
	AtNs      int64  `msgpack:"at" json:"at"`
}

func (e RoundFailed) EventType() string { return TypeRoundFailed }
func (e RoundFailed) SourceKey() string {
	return eventKey(e.EventID, "round/%d.%d/failed/%s/%s", e.Epoch, e.Round, e.Reason, e.Hash.Short())
}
func (e RoundFailed) AggregateID() string { return EventAggregate(e.EventID) }

// PayoutVoided: the payout TxID of template TemplateHash, which this
// signer signed, can provably never confirm: its input Outpoint was spent
// by another transaction SpentBy accepted at AtDAAScore, or is gone (a
// reorg took its creating block away; SpentBy zero) since AtDAAScore,
// and that was at least PayoutDepth deep at VirtualDAAScore. Only after
// it may the signer sign another template of the event.
type PayoutVoided struct {
	EventID         Hash     `msgpack:"event_id" json:"eventId"`
	TemplateHash    Hash     `msgpack:"template_hash" json:"templateHash"`
	TxID            Hash     `msgpack:"txid" json:"txid"`
	Outpoint        Outpoint `msgpack:"outpoint" json:"outpoint"`
	SpentBy         Hash     `msgpack:"spent_by,omitempty" json:"spentBy,omitempty"`
	AtDAAScore      uint64   `msgpack:"at_daa" json:"atDAAScore"`
	VirtualDAAScore uint64   `msgpack:"virtual_daa" json:"virtualDAAScore"`
	AtNs            int64    `msgpack:"at" json:"at"`
}

func (e PayoutVoided) EventType() string { return TypePayoutVoided }
func (e PayoutVoided) SourceKey() string {
	return eventKey(e.EventID, "voided/%s", e.TemplateHash.Short())
}
func (e PayoutVoided) AggregateID() string { return EventAggregate(e.EventID) }

// CommitConflict: a peer showed evidence for another hash than the one
// this signer committed. Never acted on: commitments never switch.
type CommitConflict struct {
	EventID    Hash   `msgpack:"event_id" json:"eventId"`
	Round      uint32 `msgpack:"round" json:"round"`
	LocalHash  Hash   `msgpack:"local_hash" json:"localHash"`
	RemoteHash Hash   `msgpack:"remote_hash" json:"remoteHash"`
	Sender     PeerID `msgpack:"sender" json:"sender"`
	AtNs       int64  `msgpack:"at" json:"at"`
}

func (e CommitConflict) EventType() string { return TypeCommitConflict }
func (e CommitConflict) SourceKey() string {
	return eventKey(e.EventID, "conflict/%s/%s", e.Sender, e.RemoteHash.Short())
}
func (e CommitConflict) AggregateID() string { return EventAggregate(e.EventID) }

// PayoutSubmitted is the intent before the signed payout goes to the
// ledger: its id, the signers whose signatures it carries, its bytes.
type PayoutSubmitted struct {
	EventID Hash     `msgpack:"event_id" json:"eventId"`
	Epoch   uint32   `msgpack:"epoch" json:"epoch"`
	Hash    Hash     `msgpack:"hash" json:"hash"`
	TxID    Hash     `msgpack:"txid" json:"txid"`
	Signers []PeerID `msgpack:"signers" json:"signers"`
	Tx      []byte   `msgpack:"tx" json:"tx"`
	Attempt int      `msgpack:"attempt" json:"attempt"`
	AtNs    int64    `msgpack:"at" json:"at"`
}

func (e PayoutSubmitted) EventType() string { return TypePayoutSubmitted }
func (e PayoutSubmitted) SourceKey() string {
	return eventKey(e.EventID, "payout/%d/%s/%d", e.Epoch, e.TxID.Short(), e.Attempt)
}
func (e PayoutSubmitted) AggregateID() string { return EventAggregate(e.EventID) }

// PayoutOutcome: what the ledger answered to a submission.
type PayoutOutcome struct {
	EventID  Hash   `msgpack:"event_id" json:"eventId"`
	TxID     Hash   `msgpack:"txid" json:"txid"`
	Attempt  int    `msgpack:"attempt" json:"attempt"`
	Accepted bool   `msgpack:"accepted" json:"accepted"`
	Error    string `msgpack:"error,omitempty" json:"error,omitempty"`
	AtNs     int64  `msgpack:"at" json:"at"`
}

func (e PayoutOutcome) EventType() string { return TypePayoutOutcome }
func (e PayoutOutcome) SourceKey() string {
	return eventKey(e.EventID, "payout/%s/%d/outcome", e.TxID.Short(), e.Attempt)
}
func (e PayoutOutcome) AggregateID() string { return EventAggregate(e.EventID) }

// Completed: the payout TxID of template Hash was accepted and is at
// least PayoutDepth deep.
type Completed struct {
	EventID  Hash   `msgpack:"event_id" json:"eventId"`
	Hash     Hash   `msgpack:"hash" json:"hash"`
	TxID     Hash   `msgpack:"txid" json:"txid"`
	DAAScore uint64 `msgpack:"daa_score" json:"daaScore"` // of the accepting block
	AtNs     int64  `msgpack:"at" json:"at"`
}

func (e Completed) EventType() string   { return TypeCompleted }
func (e Completed) SourceKey() string   { return eventKey(e.EventID, "completed") }
func (e Completed) AggregateID() string { return EventAggregate(e.EventID) }

// Abandoned: the event ran out of rounds or time; an operator decides.
type Abandoned struct {
	EventID Hash    `msgpack:"event_id" json:"eventId"`
	Round   uint32  `msgpack:"round" json:"round"`
	Trigger Trigger `msgpack:"trigger" json:"trigger"`
	Detail  string  `msgpack:"detail" json:"detail"`
	Epoch   uint32  `msgpack:"epoch" json:"epoch"` // resets before it
	AtNs    int64   `msgpack:"at" json:"at"`
}

func (e Abandoned) EventType() string   { return TypeAbandoned }
func (e Abandoned) SourceKey() string   { return eventKey(e.EventID, "abandoned/%d", e.Epoch) }
func (e Abandoned) AggregateID() string { return EventAggregate(e.EventID) }

// MessageRejected: envelopes from Sender refused before they reached the
// protocol (bad signature, unknown sender, replay, rate limit, malformed),
// Count of them since the previous record for this sender and reason.
type MessageRejected struct {
	Sender PeerID `msgpack:"sender" json:"sender"`
	Kind   string `msgpack:"kind" json:"kind"`
	Reason Reason `msgpack:"reason" json:"reason"`
	Detail string `msgpack:"detail" json:"detail"`
	Count  int    `msgpack:"count" json:"count"`
	// Summary marks the count of a minute's further rejections, after the
	// record of its first.
	Summary bool  `msgpack:"summary,omitempty" json:"summary,omitempty"`
	AtNs    int64 `msgpack:"at" json:"at"`
}

func (e MessageRejected) EventType() string { return TypeMessageRejected }
func (e MessageRejected) SourceKey() string {
	kind := "first"
	if e.Summary {
		kind = "summary"
	}
	return fmt.Sprintf("%srejected/%s/%s/%d/%s", signerAggregatePrefix, e.Sender, e.Reason, e.AtNs, kind)
}
func (e MessageRejected) AggregateID() string { return signerAggregatePrefix + "rejections" }

// AdminReset: an operator restarted the event at round 0 of a new epoch.
// Earlier rounds' votes are forgotten (the operator waives the lock they
// held); the write-once signed template is not.
type AdminReset struct {
	EventID  Hash   `msgpack:"event_id" json:"eventId"`
	Epoch    uint32 `msgpack:"epoch" json:"epoch"`
	Operator string `msgpack:"operator" json:"operator"`
	Reason   string `msgpack:"reason" json:"reason"`
	AtNs     int64  `msgpack:"at" json:"at"`
}

func (e AdminReset) EventType() string   { return TypeAdminReset }
func (e AdminReset) SourceKey() string   { return eventKey(e.EventID, "admin_reset/%d", e.Epoch) }
func (e AdminReset) AggregateID() string { return EventAggregate(e.EventID) }

// AdminReinjected: an operator submitted an event by hand (the seed's
// AdminReplayExternal); idempotent by the event's id.
type AdminReinjected struct {
	Event    SigningEvent `msgpack:"event" json:"event"`
	ID       Hash         `msgpack:"id" json:"id"`
	Operator string       `msgpack:"operator" json:"operator"`
	Reason   string       `msgpack:"reason" json:"reason"`
	AtNs     int64        `msgpack:"at" json:"at"`
}

func (e AdminReinjected) EventType() string { return TypeAdminReinjected }
func (e AdminReinjected) SourceKey() string {
	return eventKey(e.ID, "admin_reinjected/%d", e.AtNs)
}
func (e AdminReinjected) AggregateID() string { return EventAggregate(e.ID) }

func ns(t time.Time) int64     { return t.UnixNano() }
func fromNs(v int64) time.Time { return time.Unix(0, v).UTC() }
