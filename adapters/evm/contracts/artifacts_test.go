package contracts_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/adapters/evm/contracts"
)

// TestArtifactsMatchSources recompiles src/ with the pinned compiler and requires the
// committed build/ and the bindings' embedded bytecode to be exactly that output, so an edit
// to a .sol file without ./generate.sh fails here rather than on chain.
func TestArtifactsMatchSources(t *testing.T) {
	requireJS(t)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if msg, err := exec.CommandContext(ctx, "node", "compile.js", "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("node compile.js: %v\n%s", err, msg)
	}
	for name, meta := range map[string]string{
		"BatchDistributor": contracts.BatchDistributorMetaData.Bin,
		"BridgeToken":      contracts.BridgeTokenMetaData.Bin,
	} {
		for _, ext := range []string{".abi", ".bin"} {
			fresh, err := os.ReadFile(filepath.Join(out, name+ext))
			if err != nil {
				t.Fatal(err)
			}
			committed, err := os.ReadFile(filepath.Join("build", name+ext))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(fresh, committed) {
				t.Errorf("build/%s%s differs from a fresh compile of src/: run ./generate.sh", name, ext)
			}
			if ext == ".bin" && !bytes.Equal(common.FromHex(strings.TrimSpace(string(fresh))), common.FromHex(meta)) {
				t.Errorf("%s binding's bytecode differs from a fresh compile: run ./generate.sh", name)
			}
		}
	}
}
