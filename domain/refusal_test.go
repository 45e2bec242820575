package domain

import (
	"crypto/ed25519"
	"errors"
	"testing"
)

func TestVerifyRefusal(t *testing.T) {
	keys := map[string]ed25519.PublicKey{}
	priv := map[string]ed25519.PrivateKey{}
	for _, id := range []string{"s1", "s2", "s3"} {
		pub, k, err := ed25519.GenerateKey(nil)
		if err != nil {
			t.Fatal(err)
		}
		keys[id], priv[id] = pub, k
	}
	c := RefusalCertificate{GroupID: "g1", Burn: LogRef{ChainID: 1, TxHash: Hash32{1}, LogIndex: 2}, Burner: Address{3},
		Amount: AmountFromUint64(5), Reason: "below_minimum"}
	sign := func(c RefusalCertificate, ids ...string) RefusalCertificate {
		c.Signatures = nil
		for _, id := range ids {
			c.Signatures = append(c.Signatures, MemberSignature{Member: id, Signature: ed25519.Sign(priv[id], c.SigningBytes())})
		}
		return c
	}
	if err := VerifyRefusal(sign(c, "s1", "s2"), "g1", keys, 2); err != nil {
		t.Fatalf("quorum of two: %v", err)
	}
	if err := VerifyRefusal(sign(c, "s1", "s1"), "g1", keys, 2); !errors.Is(err, ErrCertificateQuorum) {
		t.Fatalf("one member twice: %v", err)
	}
	if err := VerifyRefusal(sign(c, "s1", "s2"), "g2", keys, 2); !errors.Is(err, ErrCertificateGroup) {
		t.Fatalf("another group: %v", err)
	}
	tampered := sign(c, "s1", "s2")
	tampered.Amount = AmountFromUint64(500)
	if err := VerifyRefusal(tampered, "g1", keys, 2); !errors.Is(err, ErrCertificateQuorum) {
		t.Fatalf("amount changed after signing: %v", err)
	}
	outsider := sign(c, "s1")
	_, k, _ := ed25519.GenerateKey(nil)
	outsider.Signatures = append(outsider.Signatures, MemberSignature{Member: "s9", Signature: ed25519.Sign(k, c.SigningBytes())})
	if err := VerifyRefusal(outsider, "g1", keys, 2); !errors.Is(err, ErrCertificateQuorum) {
		t.Fatalf("an outsider's signature counted: %v", err)
	}
	if c.RefundKey() == (RefusalCertificate{Burn: LogRef{ChainID: 1, TxHash: Hash32{1}, LogIndex: 3}}).RefundKey() {
		t.Fatal("two burns share a refund key")
	}
}
