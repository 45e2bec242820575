package twophase

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

type move struct {
	from, to Phase
	by       Trigger
}

var allPhases = []Phase{PhaseUnknown, PhaseProposing, PhaseCommitted, PhaseCompleted, PhaseFailed, PhaseAbandoned}

var allTriggers = []Trigger{TriggerActivated, TriggerProposal, TriggerQuorum, TriggerFastForward, TriggerTimeout,
	TriggerNoInputs, TriggerRevalidation, TriggerPayoutFailed, TriggerRetry, TriggerRoundSync, TriggerPayout,
	TriggerMaxRounds, TriggerDeadline, TriggerAdminReset}

// documentedMoves is every move the seed's table (section 3.2) and the
// comment of transitions allow, each with where it is written.
func documentedMoves() map[move]string {
	m := map[move]string{
		// Section 3.2, row by row.
		{PhaseUnknown, PhaseProposing, TriggerActivated}:     "3.2 receive RPC event",
		{PhaseUnknown, PhaseProposing, TriggerProposal}:      "3.2 receive ProposalBroadcast",
		{PhaseUnknown, PhaseCommitted, TriggerFastForward}:   "3.2 receive Committed broadcast",
		{PhaseProposing, PhaseCommitted, TriggerQuorum}:      "3.2 quorum",
		{PhaseProposing, PhaseCommitted, TriggerFastForward}: "3.2 receive Committed broadcast",
		{PhaseProposing, PhaseFailed, TriggerTimeout}:        "3.2 timeout without quorum",
		{PhaseFailed, PhaseProposing, TriggerRetry}:          "3.2 retry",
		{PhaseFailed, PhaseAbandoned, TriggerMaxRounds}:      "3.2 max retries exceeded",
		{PhaseCommitted, PhaseCompleted, TriggerPayout}:      "3.2 TX confirmed",

		// The comment's additions.
		{PhaseCommitted, PhaseFailed, TriggerRevalidation}: "pre-sign revalidation fails",
		{PhaseCommitted, PhaseFailed, TriggerPayoutFailed}: "the signed payout can never be accepted",
		{PhaseFailed, PhaseCommitted, TriggerQuorum}:       "a quorum while the retry waits",
		{PhaseFailed, PhaseCommitted, TriggerFastForward}:  "a verified commit while the retry waits",

		// The triggers' own documentation: a round ending without a usable
		// commit fails it, peers in a later round pull a signer along, out
		// of rounds or time abandons.
		{PhaseProposing, PhaseFailed, TriggerNoInputs}:     "no deep outputs",
		{PhaseProposing, PhaseFailed, TriggerRevalidation}: "revalidation of a quorum's template fails",
		{PhaseUnknown, PhaseProposing, TriggerRoundSync}:   "peers in a later round",
		{PhaseProposing, PhaseProposing, TriggerRoundSync}: "peers in a later round",
		{PhaseFailed, PhaseProposing, TriggerRoundSync}:    "peers in a later round",
		{PhaseProposing, PhaseAbandoned, TriggerMaxRounds}: "out of rounds",
		{PhaseCommitted, PhaseAbandoned, TriggerMaxRounds}: "out of rounds",
		{PhaseUnknown, PhaseAbandoned, TriggerDeadline}:    "out of time",
		{PhaseProposing, PhaseAbandoned, TriggerDeadline}:  "out of time",
		{PhaseCommitted, PhaseAbandoned, TriggerDeadline}:  "out of time",
		{PhaseFailed, PhaseAbandoned, TriggerDeadline}:     "out of time",
	}
	for _, p := range allPhases {
		if p != PhaseCompleted && p != PhaseCommitted {
			// Any phase -> Completed on an observed payout, Abandoned too.
			m[move{p, PhaseCompleted, TriggerPayout}] = "an observed payout"
		}
		if p != PhaseCompleted && p != PhaseUnknown {
			// An operator's reset restarts any event not Completed.
			m[move{p, PhaseUnknown, TriggerAdminReset}] = "operator reset"
		}
	}
	return m
}

func TestCheckTransitionAllowsDocumentedMoves(t *testing.T) {
	for mv, why := range documentedMoves() {
		if err := CheckTransition(mv.from, mv.to, mv.by); err != nil {
			t.Errorf("%s -> %s by %s (%s) refused: %v", mv.from, mv.to, mv.by, why, err)
		}
	}
}

// Every other combination of phases and triggers is refused, with an
// error that wraps ErrInvalidTransition and names the move.
func TestCheckTransitionRefusesUndocumentedMoves(t *testing.T) {
	allowed := documentedMoves()
	refused := 0
	phases := slices.Concat(allPhases, []Phase{Phase(42)})
	for _, from := range phases {
		for _, to := range phases {
			for _, by := range slices.Concat(allTriggers, []Trigger{"made_up"}) {
				if _, ok := allowed[move{from, to, by}]; ok {
					continue
				}
				err := CheckTransition(from, to, by)
				if !errors.Is(err, ErrInvalidTransition) {
					t.Errorf("%s -> %s by %s: %v, want ErrInvalidTransition", from, to, by, err)
					continue
				}
				if want := from.String() + " -> " + to.String() + " by " + string(by); !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %q", err, want)
				}
				refused++
			}
		}
	}
	if refused == 0 {
		t.Fatal("nothing was refused")
	}
}

func TestPhaseNamesAndTerminal(t *testing.T) {
	names := map[Phase]string{PhaseUnknown: "Unknown", PhaseProposing: "Proposing", PhaseCommitted: "Committed",
		PhaseCompleted: "Completed", PhaseFailed: "Failed", PhaseAbandoned: "Abandoned", Phase(9): "Phase(9)"}
	for p, want := range names {
		if p.String() != want {
			t.Errorf("Phase(%d).String() = %q, want %q", uint8(p), p.String(), want)
		}
		if terminal := p == PhaseCompleted || p == PhaseAbandoned; p.Terminal() != terminal {
			t.Errorf("%s.Terminal() = %v", p, p.Terminal())
		}
	}
	// The numbering is the seed's (section 3.3) and is stored.
	if PhaseUnknown != 0 || PhaseProposing != 1 || PhaseCommitted != 2 || PhaseCompleted != 3 || PhaseFailed != 4 || PhaseAbandoned != 5 {
		t.Fatal("phase numbers differ from the seed's EventPhase")
	}
}
