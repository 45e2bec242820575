package kaspa

import (
	"errors"
	"testing"

	"github.com/kaspanet/kaspad/util"
)

func TestDecodeAddressRefusesOtherNetworks(t *testing.T) {
	a, err := util.NewAddressPublicKey(make([]byte, 32), util.Bech32PrefixKaspaSim)
	if err != nil {
		t.Fatal(err)
	}
	sim := a.String()
	if _, err := DecodeAddress("kaspa-simnet", sim); err != nil {
		t.Fatalf("a simnet address on simnet: %v", err)
	}
	if _, err := DecodeAddress("kaspa-mainnet", sim); !errors.Is(err, ErrNetwork) {
		t.Fatalf("a simnet address on mainnet: %v", err)
	}
	if _, err := Params("kaspa-moon"); !errors.Is(err, ErrNetwork) {
		t.Fatalf("an unknown network: %v", err)
	}
}
