package kaspa

import (
	"errors"
	"testing"

	"github.com/bridgelog/bridgelog/domain/twophase"
)

// The least payout is where the payout's own output alone weighs the
// standard maximum: 1,000,000 sompi (about 1,000,000 grams) is refused,
// 20,000,000 is paid; another network's address is not payable at all.
func TestCheckPayable(t *testing.T) {
	g := newTestGroup(t, 3, 2)
	if MinPayout != 10_000_000 {
		t.Fatalf("MinPayout %d", MinPayout)
	}
	if err := g.rules.CheckPayable(testDestination(), 1_000_000); !errors.Is(err, twophase.ErrUnpayable) {
		t.Fatalf("1,000,000 sompi: %v, want unpayable", err)
	}
	for _, a := range []uint64{MinPayout, 20_000_000} {
		if err := g.rules.CheckPayable(testDestination(), a); err != nil {
			t.Fatalf("%d sompi: %v", a, err)
		}
	}
	if err := g.rules.CheckPayable("kaspa:qqnotanaddress", 20_000_000); err == nil {
		t.Fatal("a malformed address is payable")
	}
}
