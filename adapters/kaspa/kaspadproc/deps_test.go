package kaspadproc

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNoLibsecp256k1: kaspadproc and kaspadtest serve binaries
// that link go-ethereum (bridgelog devnet, cmd/bridgelog's tests), whose
// own libsecp256k1 collides with go-secp256k1's at link time; txscript
// and kaspawallet's root package bring go-secp256k1 in, and rpcclient's
// client (not its grpcclient transport) panics on a lost node (see
// kaspanode's conn).
func TestImportsNoLibsecp256k1(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to list the dependencies: %v", err)
	}
	for _, pkg := range []string{".", "../kaspanode/kaspadtest"} {
		out, err := exec.Command(goTool, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list listed %d dependencies of %s: %s", len(deps), pkg, out)
		}
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/kaspanet/go-secp256k1") || strings.HasSuffix(d, "/txscript") ||
				strings.HasSuffix(d, "/libkaspawallet") || strings.HasSuffix(d, "/network/rpcclient") {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
}
