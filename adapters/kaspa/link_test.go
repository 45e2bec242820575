package kaspa

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// linkProgram signs and verifies a payout key's signature with this
// package and an Ethereum one with go-ethereum's crypto (cgo, its own
// libsecp256k1), in one binary as bridgelog has them.
const linkProgram = `package main

import (
	"fmt"
	"os"

	"github.com/bridgelog/bridgelog/adapters/kaspa"
	"github.com/bridgelog/bridgelog/domain/twophase"
	ethcrypto "github.com/ethereum/go-ethereum/crypto"
)

func main() {
	secret, _, err := kaspa.NewKeyPair()
	if err != nil {
		fail(err)
	}
	s, err := kaspa.NewSigner(secret)
	if err != nil {
		fail(err)
	}
	r, err := kaspa.NewRules("kaspa-simnet", [][]byte{s.PublicKey()}, 1)
	if err != nil {
		fail(err)
	}
	tpl := r.Base()
	tpl.Inputs = []twophase.TemplateInput{r.Input(twophase.UTXO{Amount: 10e8, Script: r.ChangeScript()})}
	tpl.Outputs = []twophase.TemplateOutput{{Amount: 9e8, Script: r.ChangeScript()}}
	sig, err := s.SignPayout(tpl)
	if err != nil {
		fail(err)
	}
	if err := (kaspa.Scheme{}).VerifySignature(tpl, twophase.Member{ID: "m", PayoutKey: s.PublicKey()}, sig); err != nil {
		fail(err)
	}
	k, err := ethcrypto.GenerateKey()
	if err != nil {
		fail(err)
	}
	hash := ethcrypto.Keccak256([]byte("link"))
	esig, err := ethcrypto.Sign(hash, k)
	if err != nil || !ethcrypto.VerifySignature(ethcrypto.FromECDSAPub(&k.PublicKey), hash, esig[:64]) {
		fail(fmt.Errorf("ethereum signature: %v", err))
	}
	fmt.Println("ok")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
`

// TestLinksWithGoEthereum builds and runs, with cgo, a program that uses
// this package and go-ethereum's crypto. A second copy of libsecp256k1
// (go-secp256k1, through txscript or kaspawallet) fails its link with
// duplicate C symbols. The program is an overlay file: nothing is written
// into the source tree.
func TestLinksWithGoEthereum(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to build the link check: %v", err)
	}
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	source := filepath.Join(dir, "main.go")
	if err := os.WriteFile(source, []byte(linkProgram), 0o600); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{
		"Replace": {filepath.Join(here, "linkcheck", "main.go"): source},
	})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "linkcheck")
	build := exec.Command(goTool, "build", "-overlay", overlayFile, "-o", bin, "./linkcheck")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building a program with this package and go-ethereum's crypto: %v\n%s", err, firstLines(out, 20))
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("the linked program: %v\n%s", err, out)
	}
}

// TestImportsNoLibsecp256k1 names the culprit the link would only report
// as duplicate symbols: the package must not depend on go-secp256k1, nor
// on txscript or kaspawallet's root package, which use it.
func TestImportsNoLibsecp256k1(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to list the dependencies: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list listed %d dependencies: %s", len(deps), out)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/kaspanet/go-secp256k1") ||
			strings.HasSuffix(d, "/txscript") || strings.HasSuffix(d, "/libkaspawallet") {
			t.Errorf("the package depends on %s", d)
		}
	}
}

func firstLines(b []byte, n int) string {
	lines := strings.SplitN(string(b), "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
