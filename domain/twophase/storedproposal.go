package twophase

// StoredProposal decodes the proposal a stored vote carries
// ([VoteAccepted].Envelope), for reading a log: an audit shows the
// template (its inputs, outputs and fee) a signer voted for. The envelope
// is not verified again: the signer verified it before storing it, and
// nothing is decided on what this returns.
func StoredProposal(envelope []byte, p Params) (Proposal, error) {
	env, err := parseEnvelope(envelope)
	if err != nil {
		return Proposal{}, err
	}
	if env.Kind != KindProposal {
		return Proposal{}, reject(ReasonMalformed, "envelope of kind %s, not a proposal", env.Kind)
	}
	return DecodeProposal(env.Payload, p)
}
