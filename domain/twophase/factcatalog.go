package twophase

// FactTypes lists every fact type of the signer's log, in a stable order.
var FactTypes = []string{
	TypeSignerStarted, TypeEventRequested, TypeEventRefused, TypeRoundStarted, TypeVoteAccepted,
	TypeVoteRejected, TypeEquivocation, TypeCommitted, TypeTemplateSigned, TypeRoundFailed,
	TypeCommitConflict, TypePayoutSubmitted, TypePayoutOutcome, TypeCompleted, TypeAbandoned,
	TypeMessageRejected, TypeAdminReset, TypeAdminReinjected, TypeLockCertAccepted, TypePayoutVoided,
	TypeRefused, TypeRefusalSigned, TypeRefusalCertified, TypePrecommitAccepted,
}

// NewFact returns a zero fact of a type (a pointer, to decode into), or
// nil for a type that is not the signer's.
func NewFact(typ string) Fact {
	switch typ {
	case TypeSignerStarted:
		return new(SignerStarted)
	case TypeEventRequested:
		return new(EventRequested)
	case TypeEventRefused:
		return new(EventRefused)
	case TypeRoundStarted:
		return new(RoundStarted)
	case TypeVoteAccepted:
		return new(VoteAccepted)
	case TypeVoteRejected:
		return new(VoteRejected)
	case TypeEquivocation:
		return new(Equivocation)
	case TypeCommitted:
		return new(Committed)
	case TypeTemplateSigned:
		return new(TemplateSigned)
	case TypeRoundFailed:
		return new(RoundFailed)
	case TypeCommitConflict:
		return new(CommitConflict)
	case TypePayoutSubmitted:
		return new(PayoutSubmitted)
	case TypePayoutOutcome:
		return new(PayoutOutcome)
	case TypeCompleted:
		return new(Completed)
	case TypeAbandoned:
		return new(Abandoned)
	case TypeMessageRejected:
		return new(MessageRejected)
	case TypeAdminReset:
		return new(AdminReset)
	case TypeLockCertAccepted:
		return new(LockCertAccepted)
	case TypeAdminReinjected:
		return new(AdminReinjected)
	case TypePayoutVoided:
		return new(PayoutVoided)
	case TypeRefused:
		return new(Refused)
	case TypeRefusalSigned:
		return new(RefusalSigned)
	case TypeRefusalCertified:
		return new(RefusalCertified)
	case TypePrecommitAccepted:
		return new(PrecommitAccepted)
	}
	return nil
}
