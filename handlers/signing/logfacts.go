package signing

import (
	"log/slog"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// logFacts writes one line per state change, with stable keys: what an
// operator reads at the default level; votes and duplicates are debug.
func (s *Signer) logFacts(facts []twophase.Fact) {
	self := slog.String("signer", string(s.cfg.Protocol.Self))
	for _, f := range facts {
		switch f := f.(type) {
		case twophase.EventRequested:
			s.log.Info("signing event requested", self, "event_id", f.ID.Hex(), "stream", f.Event.Stream, "nonce", f.Event.Nonce,
				"amount", f.Event.Amount, "destination", f.Event.Destination, "via", f.Via)
		case twophase.EventRefused:
			s.log.Warn("signing event refused", self, "event_id", f.ID.Hex(), "reason", f.Reason, "detail", f.Detail)
		case twophase.RoundStarted:
			s.log.Info("round started", self, "event_id", f.EventID.Hex(), "epoch", f.Epoch, "round", f.Round, "trigger", f.Trigger)
		case twophase.VoteAccepted:
			s.log.Debug("vote stored", self, "event_id", f.EventID.Hex(), "round", f.Round, "voter", f.Voter,
				"hash", f.Hash.Hex(), "no_vote", f.NoVote, "own", f.Own)
		case twophase.PrecommitAccepted:
			s.log.Debug("precommit stored", self, "event_id", f.EventID.Hex(), "round", f.Round, "voter", f.Voter,
				"hash", f.Hash.Hex(), "nil", f.Nil, "own", f.Own)
		case twophase.VoteRejected:
			s.log.Warn("vote rejected", self, "event_id", f.EventID.Hex(), "round", f.Round, "sender", f.Sender,
				"reason", f.Reason, "detail", f.Detail)
		case twophase.Equivocation:
			s.log.Error("equivocation", self, "event_id", f.EventID.Hex(), "round", f.Round, "voter", f.Voter,
				"first_hash", f.FirstHash.Hex(), "second_hash", f.SecondHash.Hex(), "precommit", f.Precommit)
		case twophase.Committed:
			s.log.Info("committed", self, "event_id", f.EventID.Hex(), "round", f.Round, "hash", f.Hash.Hex(),
				"trigger", f.Trigger, "from", f.From, "voters", len(f.Voters))
		case twophase.TemplateSigned:
			s.log.Info("template signed", self, "event_id", f.EventID.Hex(), "round", f.Round, "hash", f.Hash.Hex(), "tx_id", f.TxID.Hex())
		case twophase.RoundFailed:
			s.log.Warn("round failed", self, "event_id", f.EventID.Hex(), "round", f.Round, "reason", f.Reason, "detail", f.Detail)
		case twophase.CommitConflict:
			s.log.Error("conflicting commit", self, "event_id", f.EventID.Hex(), "round", f.Round, "local_hash", f.LocalHash.Hex(),
				"remote_hash", f.RemoteHash.Hex(), "sender", f.Sender)
		case twophase.PayoutSubmitted:
			s.log.Info("payout submitted", self, "event_id", f.EventID.Hex(), "tx_id", f.TxID.Hex(), "attempt", f.Attempt)
		case twophase.PayoutOutcome:
			if f.Accepted {
				s.log.Debug("payout taken by the node", self, "event_id", f.EventID.Hex(), "tx_id", f.TxID.Hex())
			} else {
				s.log.Warn("payout refused by the node", self, "event_id", f.EventID.Hex(), "tx_id", f.TxID.Hex(), "err", f.Error)
			}
		case twophase.Completed:
			s.log.Info("completed", self, "event_id", f.EventID.Hex(), "tx_id", f.TxID.Hex(), "daa_score", f.DAAScore)
		case twophase.Abandoned:
			s.log.Error("abandoned", self, "event_id", f.EventID.Hex(), "round", f.Round, "trigger", f.Trigger, "detail", f.Detail)
		case twophase.Refused:
			s.log.Warn("signing event refused for good: never paid, refundable", self, "event_id", f.EventID.Hex(), "reason", f.Reason, "detail", f.Detail)
		case twophase.RefusalCertified:
			s.log.Info("refusal certified", self, "event_id", f.EventID.Hex(), "reason", f.Reason, "signatures", len(f.Signatures))
		case twophase.MessageRejected:
			s.log.Warn("message rejected", self, "sender", f.Sender, "kind", f.Kind, "reason", f.Reason, "count", f.Count, "detail", f.Detail)
		case twophase.AdminReset:
			s.log.Warn("event reset by an operator", self, "event_id", f.EventID.Hex(), "epoch", f.Epoch, "operator", f.Operator, "reason", f.Reason)
		case twophase.AdminReinjected:
			s.log.Warn("event re-injected by an operator", self, "event_id", f.ID.Hex(), "operator", f.Operator, "reason", f.Reason)
		}
	}
}
