package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridgelog/bridgelog/adapters/evm/evmwallet"
)

// writeConfigJSON writes a relay config whose chain part is valid and
// whose wallets are the given JSON fields.
func writeConfigJSON(t *testing.T, fields map[string]any) string {
	t.Helper()
	c := map[string]any{"rpc": "http://127.0.0.1:1", "chainId": 1337,
		"distributor": "0x0000000000000000000000000000000000000001", "token": "0x0000000000000000000000000000000000000002"}
	for k, v := range fields {
		c[k] = v
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "relay.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRelayConfigWallets: plain keys are accepted on a dev chain only, and
// refused elsewhere with how to import them, naming the wallet; a config
// needs a relayer wallet and one source per role.
func TestRelayConfigWallets(t *testing.T) {
	key := keyHex(devClaim0)
	if _, err := loadRelayConfig(writeConfigJSON(t, map[string]any{"devChain": true, "relayerKey": keyHex(devRelayer),
		"claimKeys": []string{key}})); err != nil {
		t.Fatalf("dev chain with plain keys: %v", err)
	}
	_, err := loadRelayConfig(writeConfigJSON(t, map[string]any{"relayerKey": keyHex(devRelayer)}))
	if !errors.Is(err, evmwallet.ErrPlainKey) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "wallet relayer") ||
		!strings.Contains(err.Error(), "bridgelog keys import") || strings.Contains(err.Error(), keyHex(devRelayer)) {
		t.Fatalf("plain relayer key off a dev chain: %v", err)
	}
	ks := map[string]any{"address": "0x00000000000000000000000000000000000000aa", "keystore": "ks", "passphraseEnv": "PW"}
	_, err = loadRelayConfig(writeConfigJSON(t, map[string]any{"wallets": map[string]any{"relayer": ks,
		"claim": []any{ks, map[string]any{"key": key}}}}))
	if !errors.Is(err, evmwallet.ErrPlainKey) || !strings.Contains(err.Error(), "wallet claim 1") {
		t.Fatalf("plain claim key off a dev chain: %v", err)
	}
	for name, fields := range map[string]map[string]any{
		"no relayer":       {"devChain": true},
		"relayer twice":    {"devChain": true, "relayerKey": key, "wallets": map[string]any{"relayer": ks}},
		"claim keys twice": {"devChain": true, "relayerKey": key, "claimKeys": []string{key}, "wallets": map[string]any{"claim": []any{ks}}},
		"retiring relayer": {"devChain": true, "wallets": map[string]any{"relayer": map[string]any{"key": key, "retiring": true}}},
	} {
		if _, err := loadRelayConfig(writeConfigJSON(t, fields)); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
		}
	}
	_, err = loadRelayConfig(writeConfigJSON(t, map[string]any{"wallets": map[string]any{"relayer": ks,
		"mint": []any{map[string]any{"address": "0x00000000000000000000000000000000000000bb"}}}}))
	if !errors.Is(err, evmwallet.ErrSpec) || !strings.Contains(err.Error(), "wallet mint 0") {
		t.Fatalf("a wallet with no key source: %v", err)
	}
}
