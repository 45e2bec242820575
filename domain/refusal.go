package domain

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// RefusalCertificate is the signing group's word that it will never pay a
// burn toward Kaspa (a destination or amount its rules refuse): a quorum
// of the group's members sign the same verdict with their identity keys.
// The relay verifies it against the group's public keys and mints the
// burned amount back to the burner, once (the token's refund guard is
// keyed by the burn's source key).
type RefusalCertificate struct {
	// GroupID is the signing group's id (hex), as its members compute it.
	GroupID string `msgpack:"group_id" json:"groupId"`
	// Burn is the WithdrawalToKaspa log the group refuses to pay.
	Burn LogRef `msgpack:"burn" json:"burn"`
	// Token is the contract the tokens were burned on: the refund mints
	// there.
	Token Address `msgpack:"token" json:"token"`
	// Burner gets the amount back.
	Burner Address `msgpack:"burner" json:"burner"`
	Amount Amount  `msgpack:"amount" json:"amount"`
	// Reason is the refusal's typed reason ("policy_denied_destination",
	// "below_minimum", "not_an_address", ...), the same on every member.
	Reason     string            `msgpack:"reason" json:"reason"`
	Signatures []MemberSignature `msgpack:"signatures" json:"signatures"`
}

// MemberSignature is one member's ed25519 signature of a certificate's
// SigningBytes.
type MemberSignature struct {
	Member    string `msgpack:"member" json:"member"`
	Signature []byte `msgpack:"signature" json:"signature"`
}

// refusalDomain separates a refusal's signed bytes from every other
// message an identity key signs.
const refusalDomain = "bridgelog/refusal-certificate/v1"

// SigningBytes is what each member signs: a digest of the domain tag and
// every field but the signatures, each length-prefixed.
func (c RefusalCertificate) SigningBytes() []byte {
	h := sha256.New()
	put := func(b []byte) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	put([]byte(refusalDomain))
	put([]byte(c.GroupID))
	put([]byte(c.Burn.WithdrawalToKaspaID()))
	put(c.Token[:])
	put(c.Burner[:])
	put([]byte(c.Amount.String()))
	put([]byte(c.Reason))
	return h.Sum(nil)
}

// RefundKey is the refund's on-chain guard key: one refund per burn.
func (c RefusalCertificate) RefundKey() Hash32 { return RefundKeyOf(c.Burn) }

// RefundKeyOf is the token's refund guard key of the burn toward Kaspa
// logged at burn: what its refund's Refunded log names.
func RefundKeyOf(burn LogRef) Hash32 {
	return Hash32(sha256.Sum256([]byte("refund/" + burn.WithdrawalToKaspaID())))
}

// Errors of a certificate that must not be acted on.
var (
	ErrCertificateGroup  = errors.New("refusal certificate names another group")
	ErrCertificateQuorum = errors.New("refusal certificate lacks a quorum of valid member signatures")
)

// VerifyRefusal checks c against a group's id, its members' identity keys
// (by member id) and its quorum: at least quorum distinct listed members
// signed c's SigningBytes. Unknown members, duplicates and bad signatures
// count for nothing.
func VerifyRefusal(c RefusalCertificate, groupID string, keys map[string]ed25519.PublicKey, quorum int) error {
	if c.GroupID != groupID {
		return fmt.Errorf("%w: %q, want %q", ErrCertificateGroup, c.GroupID, groupID)
	}
	msg := c.SigningBytes()
	seen := map[string]bool{}
	for _, s := range c.Signatures {
		k, ok := keys[s.Member]
		if !ok || seen[s.Member] || len(k) != ed25519.PublicKeySize || !ed25519.Verify(k, msg, s.Signature) {
			continue
		}
		seen[s.Member] = true
	}
	if quorum < 1 || len(seen) < quorum {
		return fmt.Errorf("%w: %d valid of %d needed", ErrCertificateQuorum, len(seen), quorum)
	}
	return nil
}
