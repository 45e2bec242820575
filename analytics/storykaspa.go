package analytics

import (
	"fmt"

	"github.com/bridgelog/bridgelog/domain"
)

// tellKaspaDeposit: a deposit on Kaspa, as the relay's Kaspa indexer saw
// it: accepted by a chain block, confirmed or refused at the depth, or
// its block dropped from the virtual chain.
func tellKaspaDeposit(s *StoryStep, body any) bool {
	switch b := body.(type) {
	case *domain.KaspaDepositDetected:
		s.Section = SectionChain
		s.add("outpoint", b.Outpoint.Key())
		s.add("sompi", u64(b.Amount))
		if b.Recipient != (domain.Address{}) {
			s.add("recipient", b.Recipient.Hex())
		}
		s.add("block", b.Block.Hex())
		s.add("daa_score", u64(b.DAAScore))
		s.add("refusal", b.Refusal)
		s.Explain = fmt.Sprintf("a deposit of %d sompi for %s was accepted on Kaspa by chain block %s (DAA score %d)",
			b.Amount, b.Recipient.Hex(), b.Block.Hex(), b.DAAScore)
		if b.Refusal != "" {
			s.Explain += "; it will not be minted: " + b.Refusal
		}
	case *domain.KaspaDepositConfirmed:
		s.Section = SectionConfirmation
		s.add("block", b.Block.Hex())
		s.add("virtual_daa_score", u64(b.VirtualDAAScore))
		s.add("depth", u64(b.Depth))
		s.Explain = fmt.Sprintf("the deposit's block was %d DAA score deep at virtual DAA score %d", b.Depth, b.VirtualDAAScore)
	case *domain.KaspaDepositRefused:
		s.Section = SectionOutcome
		s.add("block", b.Block.Hex())
		s.add("reason", b.Reason)
		s.Explain = fmt.Sprintf("the deposit is recorded and never minted: %s", b.Reason)
	case *domain.KaspaDepositReorged:
		s.Section = SectionChain
		s.add("block", b.Block.Hex())
		if b.WasFinal {
			s.add("was_final", "true")
		}
		s.Explain = fmt.Sprintf("chain block %s left the virtual chain: that sighting is never acted on", b.Block.Hex())
	default:
		return false
	}
	return true
}
