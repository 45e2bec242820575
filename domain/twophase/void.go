package twophase

// A payout every member signed may never land: an input is spent by
// another transaction, or a reorg takes away the block that created it.
// A signer then signs another template of the event only once the signed
// one can provably never confirm (seed 001, 8.4 and 15.1), and records
// that proof (PayoutVoided) first. A payout merely not accepted yet, or
// refused by the node for its fee, is sent again as it is.

// VoidProof is the input of template t (transaction txID) that proves its
// payout can never confirm, as input reports it: spent by another
// transaction accepted at least depth DAA scores ago, or gone (not in the
// UTXO set, spent by no transaction the node knows) for at least depth.
// A shallower spend can still be reorganised away, and then the signed
// payout could confirm: that is no proof. ok is false without proof, or
// when a status cannot be read.
func VoidProof(t Template, txID Hash, depth uint64, input func(Outpoint) (InputStatus, error)) (PayoutVoided, bool) {
	for _, in := range t.Inputs {
		st, err := input(in.Outpoint)
		if err != nil {
			return PayoutVoided{}, false
		}
		v := PayoutVoided{TxID: txID, Outpoint: in.Outpoint, VirtualDAAScore: st.VirtualDAAScore}
		switch {
		case st.Unspent:
		case !st.SpentBy.IsZero() && st.SpentBy != txID && st.SpentDAA > 0 && st.VirtualDAAScore >= st.SpentDAA+depth:
			v.SpentBy, v.AtDAAScore = st.SpentBy, st.SpentDAA
			return v, true
		case st.SpentBy.IsZero() && st.GoneSince > 0 && st.VirtualDAAScore >= st.GoneSince+depth:
			v.AtDAAScore = st.GoneSince
			return v, true
		}
	}
	return PayoutVoided{}, false
}

// tryVoid records the proof that the payout this signer signed for e can
// never confirm, when its node shows one; true when the signer is free to
// sign another template of the event. The input statuses are read before
// the payout's own status, as views are (see checkPayout): a payout
// accepted in between then shows as accepted, never as voided.
func (s *State) tryVoid(e *EventState, en Env) bool {
	if e.Signed == nil {
		return true
	}
	if en.Input == nil || en.Payout == nil {
		return false
	}
	kt := e.templates[e.Signed.Hash]
	if kt == nil {
		return false // the template is needed to know its inputs
	}
	v, ok := VoidProof(kt.template, e.Signed.TxID, s.cfg.Params.PayoutDepth, en.Input)
	if !ok {
		return false
	}
	if st, err := en.Payout(e.Signed.TxID); err != nil || st.Accepted {
		return false
	}
	v.EventID, v.TemplateHash, v.AtNs = e.ID, e.Signed.Hash, ns(en.Now)
	s.emit(v)
	return e.Signed == nil
}

// voided reports whether this signer signed h once and proved its payout
// void: it never signs it again.
func (e *EventState) voided(h Hash) bool {
	for _, v := range e.Voided {
		if v == h {
			return true
		}
	}
	return false
}
