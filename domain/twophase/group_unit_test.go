package twophase

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestGroupValidate(t *testing.T) {
	valid := func(n, m int) Group { g, _ := testGroup(n, m); return g }
	with := func(n, m int, edit func(*Group)) Group { g := valid(n, m); edit(&g); return g }
	cases := []struct {
		name  string
		group Group
		want  error // nil: valid
	}{
		{"one member", valid(1, 1), nil},
		{"two of two", valid(2, 2), nil},
		{"3 of 5", valid(5, 3), nil},
		{"11 of 20", valid(20, 11), nil},
		{"20 of 20", valid(20, 20), nil},
		{"no members", with(1, 1, func(g *Group) { g.Members = nil }), ErrGroupSize},
		{"21 members", valid(21, 11), ErrGroupSize},
		{"quorum 0", valid(3, 0), ErrQuorumRange},
		{"quorum above N", valid(3, 4), ErrQuorumRange},
		{"1 of 2 is not a majority", valid(2, 1), ErrQuorumNotMajority},
		{"2 of 4 is not a majority", valid(4, 2), ErrQuorumNotMajority},
		{"10 of 20 is not a majority", valid(20, 10), ErrQuorumNotMajority},
		{"profile b without faults", with(3, 2, func(g *Group) { g.Profile = ProfileB }), ErrTooFewForFaults},
		{"profile b, 3 members for f = 1", with(3, 3, func(g *Group) { g.Profile, g.Faults = ProfileB, 1 }), ErrTooFewForFaults},
		{"profile b, 4 members, f = 1, quorum 3", with(4, 3, func(g *Group) { g.Profile, g.Faults = ProfileB, 1 }), nil},
		{"profile b, 4 members, f = 1, quorum 2", with(4, 2, func(g *Group) { g.Profile, g.Faults = ProfileB, 1 }), ErrQuorumRange},
		{"profile b, 4 members, f = 1, quorum 4 out of reach", with(4, 4, func(g *Group) { g.Profile, g.Faults = ProfileB, 1 }), ErrQuorumRange},
		{"profile b, 7 members, f = 2, quorum 5", with(7, 5, func(g *Group) { g.Profile, g.Faults = ProfileB, 2 }), nil},
		{"profile b, 6 members, f = 2", with(6, 5, func(g *Group) { g.Profile, g.Faults = ProfileB, 2 }), ErrTooFewForFaults},
		{"profile a with faults", with(3, 2, func(g *Group) { g.Faults = 1 }), ErrProfileUnsupported},
		{"no profile", with(3, 2, func(g *Group) { g.Profile = "" }), ErrProfileUnsupported},
		{"no change script", with(3, 2, func(g *Group) { g.ChangeScript = Script{} }), ErrNoChangeScript},
		{"duplicate id", with(3, 2, func(g *Group) { g.Members[2].ID = g.Members[0].ID }), ErrDuplicateMember},
		{"duplicate identity key", with(3, 2, func(g *Group) { g.Members[2].IdentityKey = g.Members[0].IdentityKey }), ErrDuplicateMember},
		{"duplicate payout key", with(3, 2, func(g *Group) { g.Members[2].PayoutKey = g.Members[1].PayoutKey }), ErrDuplicateMember},
		{"a payout key that is another's identity key", with(3, 2, func(g *Group) { g.Members[2].PayoutKey = slices.Clone(g.Members[0].IdentityKey) }), ErrDuplicateMember},
		{"short identity key", with(3, 2, func(g *Group) { g.Members[1].IdentityKey = g.Members[1].IdentityKey[:31] }), ErrMemberKey},
		{"long identity key", with(3, 2, func(g *Group) { g.Members[1].IdentityKey = append(slices.Clone(g.Members[1].IdentityKey), 0) }), ErrMemberKey},
		{"no payout key", with(3, 2, func(g *Group) { g.Members[1].PayoutKey = nil }), ErrMemberKey},
		{"empty id", with(3, 2, func(g *Group) { g.Members[1].ID = "" }), ErrMemberKey},
		{"id over 64 bytes", with(3, 2, func(g *Group) { g.Members[1].ID = PeerID(strings.Repeat("x", MaxPeerIDBytes+1)) }), ErrMemberKey},
		{"id of 64 bytes", with(3, 2, func(g *Group) { g.Members[1].ID = PeerID(strings.Repeat("x", MaxPeerIDBytes)) }), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.group.Validate()
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("Validate = %v, want %v", err, c.want)
			}
		})
	}
}

func TestGroupIDOrderIndependent(t *testing.T) {
	g, _ := testGroup(5, 3)
	want := g.ID()
	r := g
	r.Members = slices.Clone(g.Members)
	slices.Reverse(r.Members)
	if r.ID() != want {
		t.Fatal("the member order changes the group id")
	}
	if r.Members[0].ID != "s5" {
		t.Fatal("ID reordered the caller's members")
	}
	if s := r.Sorted(); s.Members[0].ID != "s1" || r.Members[0].ID != "s5" {
		t.Fatalf("Sorted: %v, original now %v", s.IDs(), r.IDs())
	}
}

// Every field of the group is part of its id: signers configured
// differently refuse each other's envelopes.
func TestGroupIDChangesWithEveryField(t *testing.T) {
	base, _ := testGroup(3, 2)
	edits := map[string]func(*Group){
		"profile":               func(g *Group) { g.Profile = ProfileB },
		"network":               func(g *Group) { g.Network = "kaspa-simnet" },
		"quorum":                func(g *Group) { g.Quorum = 3 },
		"change script bytes":   func(g *Group) { g.ChangeScript = payTo("other") },
		"change script version": func(g *Group) { g.ChangeScript = Script{Version: 1, Bytes: groupScript.Bytes} },
		"member id":             func(g *Group) { g.Members[1].ID = "s9" },
		"identity key":          func(g *Group) { g.Members[1].IdentityKey = flipLast(g.Members[1].IdentityKey) },
		"payout key":            func(g *Group) { g.Members[1].PayoutKey = flipLast(g.Members[1].PayoutKey) },
		"a member less":         func(g *Group) { g.Members = g.Members[:2] },
		"a member more": func(g *Group) {
			extra, _ := testGroup(4, 3)
			g.Members = append(g.Members, extra.Members[3])
		},
		// Length prefixes keep field boundaries: moving a byte from the
		// network into the profile is another group.
		"field boundary": func(g *Group) { g.Profile, g.Network = "as", "im" },
	}
	ids := map[Hash]string{base.ID(): "base"}
	for name, edit := range edits {
		g := base
		g.Members = slices.Clone(base.Members)
		edit(&g)
		id := g.ID()
		if other, dup := ids[id]; dup {
			t.Errorf("changing the %s gives the id of %s", name, other)
		}
		ids[id] = name
	}
}

func flipLast(b []byte) []byte {
	c := bytes.Clone(b)
	c[len(c)-1] ^= 1
	return c
}
