package contracts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/bridgelog/bridgelog/domain/merkle"
)

// npmOnce installs the pinned JS reference (package-lock.json) once per test binary.
var npmOnce = sync.OnceValue(func() error {
	if _, err := os.Stat(filepath.Join("node_modules", "@openzeppelin", "merkle-tree", "package.json")); err == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund").CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm ci in adapters/evm/contracts: %w\n%s", err, out)
	}
	return nil
})

// requireJS fails the test, loudly, when node/npm or the pinned packages are unavailable:
// the cross-check is the proof that our tree is the JS library's tree.
func requireJS(tb testing.TB) {
	tb.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Fatalf("%s not found on PATH: install Node.js >= 18 with npm (Debian: apt-get install -y nodejs npm) to run the merkle cross-check", tool)
		}
	}
	if err := npmOnce(); err != nil {
		tb.Fatal(err)
	}
}

type ozOutput struct {
	Root         common.Hash     `json:"root"`
	Proofs       [][]common.Hash `json:"proofs"`
	ProofsByLeaf [][]common.Hash `json:"proofsByLeaf"`
	Siblings     int             `json:"siblings"`
	BuildMs      float64         `json:"buildMs"`
	ProofsMs     float64         `json:"proofsMs"`
}

func runOZ(tb testing.TB, leaves []common.Hash, args ...string) ozOutput {
	tb.Helper()
	in, err := json.Marshal(map[string][]common.Hash{"leaves": leaves})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"merkle-oz.js"}, args...)...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("node merkle-oz.js: %v\n%s", err, stderr.String())
	}
	var res ozOutput
	if err := json.Unmarshal(out, &res); err != nil {
		tb.Fatalf("node output: %v", err)
	}
	return res
}

func randomHashes(r *rand.Rand, n int) []common.Hash {
	out := make([]common.Hash, n)
	for i := range out {
		for j := range out[i] {
			out[i][j] = byte(r.UintN(256))
		}
	}
	return out
}

// TestMerkleMatchesOpenZeppelinJS compares domain/merkle with @openzeppelin/merkle-tree@1.0.8:
// same root, same proof for every leaf by index and by hash.
func TestMerkleMatchesOpenZeppelinJS(t *testing.T) {
	requireJS(t)
	r := rand.New(rand.NewPCG(42, 1))
	cases := map[string][]common.Hash{}
	for _, n := range []int{1, 2, 3, 7, 100, 1000, 5000} { // 5000: past merkle's bucketed sort threshold
		cases[fmt.Sprintf("random-%d", n)] = randomHashes(r, n)
	}
	d := randomHashes(r, 5)
	cases["duplicates"] = []common.Hash{d[0], d[1], d[0], d[2], d[3], d[0], d[4], d[1]}
	cases["all-equal"] = []common.Hash{d[2], d[2], d[2]}

	for name, leaves := range cases {
		t.Run(name, func(t *testing.T) {
			want := runOZ(t, leaves)
			tr, err := merkle.New(leaves)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Root() != want.Root {
				t.Fatalf("root %s, JS %s", tr.Root(), want.Root)
			}
			for i, l := range leaves {
				p, err := tr.Proof(i)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(p, want.Proofs[i]) && !(len(p) == 0 && len(want.Proofs[i]) == 0) {
					t.Fatalf("proof %d = %v, JS %v", i, p, want.Proofs[i])
				}
				pl, err := tr.ProofFor(l)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(pl, want.ProofsByLeaf[i]) && !(len(pl) == 0 && len(want.ProofsByLeaf[i]) == 0) {
					t.Fatalf("proof by leaf %d = %v, JS %v", i, pl, want.ProofsByLeaf[i])
				}
			}
		})
	}
}

// BenchmarkMerkleJSvsGo100k builds the same 100,000 leaves with the JS library and with
// domain/merkle (root + every proof) and reports both times and their ratio. It runs node
// once per iteration; use -benchtime 1x.
func BenchmarkMerkleJSvsGo100k(b *testing.B) {
	requireJS(b)
	const n = 100_000
	leaves := randomHashes(rand.New(rand.NewPCG(7, 7)), n)
	var jsMs, goMs float64
	for b.Loop() {
		js := runOZ(b, leaves, "--bench")
		start := time.Now()
		tr, err := merkle.New(leaves)
		if err != nil {
			b.Fatal(err)
		}
		siblings := 0
		for _, p := range tr.AllProofs() {
			siblings += len(p)
		}
		goMs = float64(time.Since(start).Microseconds()) / 1000
		if tr.Root() != js.Root || siblings != js.Siblings {
			b.Fatalf("Go root %s/%d siblings, JS %s/%d", tr.Root(), siblings, js.Root, js.Siblings)
		}
		jsMs = js.BuildMs + js.ProofsMs
		b.Logf("JS build %.0f ms + proofs %.0f ms; Go %.1f ms", js.BuildMs, js.ProofsMs, goMs)
	}
	b.ReportMetric(jsMs, "js-ms")
	b.ReportMetric(goMs, "go-ms")
	b.ReportMetric(jsMs/goMs, "js/go")
}
