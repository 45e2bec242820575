package twophase_test

import (
	"crypto/ed25519"
	"errors"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// certFor signs m by the first k members of c's group.
func certFor(c *cluster, m twophase.LockMsg, k int) twophase.LockCert {
	cert := twophase.LockCert{Msg: m}
	for _, id := range c.ids[:k] {
		cert.Sigs = append(cert.Sigs, twophase.LockSignature{Signer: id, Signature: twophase.SignLock(c.idKeys[id], c.group.ID(), m)})
	}
	return cert
}

// Certificates at N = 4, 7, 10, 19, 20: a quorum of distinct members'
// valid signatures verifies, and every flaw is refused with its reason.
func TestLockCertificates(t *testing.T) {
	for _, n := range []int{4, 7, 10, 19, 20} {
		f := (n - 1) / 3
		c := newClusterB(t, n, f)
		q := c.group.Quorum
		opener := twophase.NewOpener(c.group, nil)
		m := twophase.LockMsg{EventID: streamEvent(0, 0).ID(), Round: 1, Anchor: 900, TemplateHash: twophase.Hash{7},
			Outpoints: []twophase.Outpoint{{TxID: twophase.Hash{1}}, {TxID: twophase.Hash{2}, Index: 3}}}
		good := certFor(c, m, q)
		decoded, err := twophase.DecodeLockCert(good.Encode(), c.params.WithDefaults())
		if err != nil {
			t.Fatalf("N=%d decode: %v", n, err)
		}
		if err := opener.VerifyLockCert(q, decoded); err != nil {
			t.Fatalf("N=%d: a quorum's certificate is refused: %v", n, err)
		}
		otherRound := m
		otherRound.Round = 2
		stranger := ed25519.NewKeyFromSeed(make([]byte, 32))
		cases := map[string]struct {
			edit func(*twophase.LockCert)
			want twophase.Reason
		}{
			"one short of a quorum": {func(x *twophase.LockCert) { x.Sigs = x.Sigs[:q-1] }, twophase.ReasonCertTooFewSignatures},
			"a member twice":        {func(x *twophase.LockCert) { x.Sigs[q-1] = x.Sigs[0] }, twophase.ReasonCertDuplicateSigner},
			"a signature of another round (mixed rounds)": {func(x *twophase.LockCert) {
				x.Sigs[1].Signature = twophase.SignLock(c.idKeys[x.Sigs[1].Signer], c.group.ID(), otherRound)
			}, twophase.ReasonBadLockSignature},
			"a wrong digest": {func(x *twophase.LockCert) { x.Msg.Anchor++ }, twophase.ReasonBadLockSignature},
			"an unknown signer": {func(x *twophase.LockCert) {
				x.Sigs[0] = twophase.LockSignature{Signer: "mallory", Signature: twophase.SignLock(stranger, c.group.ID(), m)}
			}, twophase.ReasonUnknownSender},
			"a member's signature under another key": {func(x *twophase.LockCert) {
				x.Sigs[0].Signature = twophase.SignLock(stranger, c.group.ID(), m)
			}, twophase.ReasonBadLockSignature},
			"another group's signatures": {func(x *twophase.LockCert) {
				*x = certFor(c, m, q)
				for i := range x.Sigs {
					x.Sigs[i].Signature = twophase.SignLock(c.idKeys[x.Sigs[i].Signer], twophase.Hash{9}, m)
				}
			}, twophase.ReasonBadLockSignature},
		}
		for name, cs := range cases {
			x := certFor(c, m, q)
			cs.edit(&x)
			err := opener.VerifyLockCert(q, x)
			if twophase.ReasonOf(err) != cs.want {
				t.Errorf("N=%d %s: %v, want %s", n, name, err, cs.want)
			}
		}
	}
}

// Malformed certificates are refused at decode: trailing bytes,
// outpoints out of order, more signatures than members.
func TestLockCertificateDecodeBounds(t *testing.T) {
	c := newClusterB(t, 4, 1)
	p := c.params.WithDefaults()
	m := twophase.LockMsg{Outpoints: []twophase.Outpoint{{TxID: twophase.Hash{2}}, {TxID: twophase.Hash{1}}}}
	for name, raw := range map[string][]byte{
		"trailing bytes":         append(certFor(c, twophase.LockMsg{}, 3).Encode(), 0),
		"outpoints out of order": certFor(c, m, 3).Encode(),
		"truncated":              certFor(c, twophase.LockMsg{}, 3).Encode()[:40],
	} {
		if _, err := twophase.DecodeLockCert(raw, p); !errors.Is(err, twophase.ErrMalformed) {
			t.Errorf("%s: %v, want malformed", name, err)
		}
	}
}
