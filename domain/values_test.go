package domain

import (
	"math/big"
	"testing"
)

// TestAmountString: the decimal form is big.Int's for every size, the
// uint64 fast path and its edge included.
func TestAmountString(t *testing.T) {
	max256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for _, s := range []string{"0", "1", "599890000000000000", "18446744073709551615", "18446744073709551616", max256.String()} {
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			t.Fatal(s)
		}
		a, err := NewAmount(n)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.String(); got != s {
			t.Errorf("Amount(%s).String() = %s", s, got)
		}
	}
}
