// Package twophase is the leaderless two-phase signing protocol of seed 001
// (Profile A): signers propose a payout template for a signing event, a
// proposal is a vote, and a signer commits to a template only when it holds
// a quorum (M > N/2) of identical votes for it in one round. Everything here
// is pure: time, ledger views and keys are given by the caller.
//
// What a signer keeps is a fold of the facts on its own log ([State.Apply]);
// every decision ([State.Deliver], [State.Tick], …) both returns the new
// facts and applies them, so a signer restarted by replaying its log is the
// signer that crashed. The caller appends the facts durably before it sends
// the messages a decision produced: an honest signer never votes or signs
// twice, even across a crash.
//
// Safety, beyond the seed:
//   - A signer signs at most one template per event, ever (the write-once
//     signed template). With M > N/2 at most one template of an event can
//     gather M signatures, so an event is never paid twice.
//   - Across rounds the seed's per-round quorum argument is not enough: a
//     hash can reach quorum in round r at one signer while others time out
//     and form another quorum in round r+1. Here a signer that moves to a
//     later round votes only for a hash that could have been committed
//     earlier, when exactly one could ([LockFor]; Profile A); with several
//     candidates, or too many unknown votes, it abstains and asks its peers.
//     At most one hash of an event ever reaches quorum, unless an earlier
//     one is dead (an input spent elsewhere or reorganised away), which no
//     signer can pay anyway.
//   - A commit travels with its evidence: the quorum's signed proposals. A
//     signer fast-forwards only on evidence it verified, never on a peer's
//     word.
//   - A proposal must pay exactly the event's destination and amount; every
//     other output returns change to the group.
//
// A member's key in an attacker's hands is bounded too (see budgets.go):
// an envelope that came on a member's authenticated link is delivered
// with it ([State.DeliverFrom]) and every refusal is that link's, recorded
// in a window per link, reason and minute; a refused vote or an
// equivocation is recorded once per slot; votes of events not confirmed
// here, relayed votes past a budget and source proofs past a budget cost
// no record each.
//
// Profile B (up to f Byzantine members, quorum Q with 2Q-N >= f+1) votes
// in two steps a round, as Tendermint does, without a leader:
//   - Prevote: the proposal, its lock message (event, epoch, round,
//     anchor, template, outpoints) signed under a prevote tag. A polka is
//     Q prevotes of one template in one round.
//   - Precommit ([Precommit], fact [PrecommitAccepted], recorded before it
//     is sent, one per member, event and round, ever): a member holding a
//     polka of its current round signs its lock message under the lock
//     tag and is locked on it; with no polka possible any more, or at the
//     timeout, it precommits nil. Q precommits of one lock message are
//     the lock certificate, the commit.
//   - Lock and unlock: a member prevotes, in later rounds, the template of
//     the latest polka it knows (by Q prevotes, or by f+1 precommits of
//     one template, one of them honest); that is its lock unless a polka
//     of another template came in a later round. Unlocked and knowing no
//     polka, it prevotes the template most prevoted in the round (or the
//     last), so a split converges; else its own.
//
// Safety: a certificate for X in round r means at least Q-f honest
// members precommitted X in r, hence hold a polka for X there. A polka
// for Y != X in a later round needs Q prevotes, and Q + (Q-f) > N, so one
// of those honest members prevoted Y; it does so only after a polka for Y
// in a round after r: by induction on the rounds after r, there is none,
// so no certificate for another template ever forms (two certificates in
// one round would take an honest member's two precommits). Liveness: once
// the honest members' messages arrive within a round's timeout and their
// views accept one template, the member with the latest polka holds the
// others to it, unlocked members follow the most prevoted template, and
// f+1 votes of the next round bring a member whose retry delay drifted
// into it; no Q-f ambiguity leaves every member abstaining.
package twophase
