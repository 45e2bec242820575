package domain

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckBinding: a log with no binding is bound; one bound to the same
// chains and contracts is used; any difference is refused naming both.
func TestCheckBinding(t *testing.T) {
	a := RelayBound{ChainID: 1, Distributor: Address{1}, ExecChainID: 1, Token: Address{2}}
	if record, err := CheckBinding(nil, a); !record || err != nil {
		t.Fatalf("no binding: record %t, %v", record, err)
	}
	if record, err := CheckBinding([]RelayBound{a}, a); record || err != nil {
		t.Fatalf("the same binding: record %t, %v", record, err)
	}
	for _, b := range []RelayBound{
		{ChainID: 2, Distributor: a.Distributor, ExecChainID: 1, Token: a.Token},
		{ChainID: 1, Distributor: a.Distributor, ExecChainID: 3, Token: a.Token},
		{ChainID: 1, Distributor: Address{9}, ExecChainID: 1, Token: a.Token},
	} {
		_, err := CheckBinding([]RelayBound{a}, b)
		if !errors.Is(err, ErrBoundElsewhere) || !strings.Contains(err.Error(), a.String()) || !strings.Contains(err.Error(), b.String()) {
			t.Fatalf("%v against %v: %v", b, a, err)
		}
	}
}
