package simledger

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// Group is a simulated signing group with every member's keys: what the
// simulator, and tests that run several signers, start from.
type Group struct {
	twophase.Group
	IDs      []twophase.PeerID
	Identity map[twophase.PeerID]ed25519.PrivateKey
	Payout   *Keys
}

// NewGroup makes a Profile A group of the members ids with commit quorum
// quorum: identity and payout keys derived from seed, change returning to
// the simulated address of name.
func NewGroup(name, seed string, ids []twophase.PeerID, quorum int) Group {
	g := Group{IDs: ids, Identity: map[twophase.PeerID]ed25519.PrivateKey{}, Payout: NewKeys(seed, len(ids))}
	change, _ := Rules{}.ScriptFor(GroupAddress(name)) // a well-formed sim address by construction
	g.Group = twophase.Group{Profile: twophase.ProfileA, Quorum: quorum, Network: "sim", ChangeScript: change}
	for i, id := range ids {
		s := sha256.Sum256([]byte(fmt.Sprintf("simledger/identity/%s/%s", seed, id)))
		key := ed25519.NewKeyFromSeed(s[:])
		g.Identity[id] = key
		g.Members = append(g.Members, twophase.Member{ID: id, IdentityKey: key.Public().(ed25519.PublicKey), PayoutKey: g.Payout.PublicKey(i)})
	}
	return g
}

// Config is member id's protocol configuration in the group, with the
// simulated ledger's rules and its own payout signer.
func (g Group) Config(id twophase.PeerID, p twophase.Params, pol twophase.Policy) twophase.Config {
	i := 0
	for j, x := range g.IDs {
		if x == id {
			i = j
		}
	}
	return twophase.Config{Self: id, Group: g.Group, Params: p, Policy: pol, Rules: Rules{}, Scheme: g.Payout,
		Payout: g.Payout.Signer(g.Payout.PublicKey(i)), Identity: g.Identity[id], Refusal: RefusalSubject(g.Group.ID().Hex())}
}

// MemberIDs returns s1..sN (width-padded, so that they sort in order).
func MemberIDs(n int) []twophase.PeerID {
	out := make([]twophase.PeerID, n)
	width := len(fmt.Sprint(n))
	for i := range out {
		out[i] = twophase.PeerID(fmt.Sprintf("s%0*d", width, i+1))
	}
	return out
}
