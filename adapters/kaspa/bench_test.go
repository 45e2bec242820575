package kaspa

import "testing"

// The payout of every signing event costs each member one SignPayout and
// a collector M VerifySignature and one Assemble; these price them for a
// 2-input template of a 2-of-3 group.

func BenchmarkSignPayout2Inputs(b *testing.B) {
	g := newTestGroup(b, 3, 2)
	tpl := g.build(b, 4*kas, g.view(3*kas, 3*kas))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.signers[0].SignPayout(tpl); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifySignature2Inputs(b *testing.B) {
	g := newTestGroup(b, 3, 2)
	tpl := g.build(b, 4*kas, g.view(3*kas, 3*kas))
	sig := g.sign(b, tpl, 0)[0].Signature
	b.ReportAllocs()
	for b.Loop() {
		if err := (Scheme{}).VerifySignature(tpl, g.group.Members[0], sig); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAssemble2Inputs2of3(b *testing.B) {
	g := newTestGroup(b, 3, 2)
	tpl := g.build(b, 4*kas, g.view(3*kas, 3*kas))
	sigs := g.sign(b, tpl, 0, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Scheme{}).Assemble(tpl, g.group, sigs); err != nil {
			b.Fatal(err)
		}
	}
}
