package gethproc

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSourceModulePinsVersion: deploy/geth, which a checkout builds geth
// in, requires the go-ethereum version that names the cache directory and
// that a go install outside a checkout fetches.
func TestSourceModulePinsVersion(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	dir := sourceDir(t.Context(), goTool)
	if dir == "" {
		t.Fatalf("no %s found from the package's directory", sourceModule)
	}
	cmd := exec.Command(goTool, "list", "-m", "-f", "{{.Version}}", "github.com/ethereum/go-ethereum")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list in %s: %v\n%s", dir, err, out)
	}
	if got := strings.TrimSpace(string(out)); got != Version {
		t.Fatalf("%s requires go-ethereum %s, gethproc.Version is %s", dir, got, Version)
	}
}
