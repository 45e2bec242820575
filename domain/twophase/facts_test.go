package twophase

import "testing"

// Every fact type has a constructor and names itself.
func TestFactCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, typ := range FactTypes {
		f := NewFact(typ)
		if f == nil || f.EventType() != typ {
			t.Fatalf("NewFact(%q) = %v", typ, f)
		}
		if seen[typ] {
			t.Fatalf("%s listed twice", typ)
		}
		seen[typ] = true
	}
	if NewFact("deposit.detected") != nil {
		t.Fatal("NewFact accepts a bridge type")
	}
}
