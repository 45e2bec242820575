// Package kaspadtest runs real kaspad simnet nodes and miners for tests:
// it builds kaspad and kaspaminer from the module version this repository
// requires (once per machine, cached), starts nodes on free loopback ports
// with their own data directories, mines to an address, waits for mature
// coinbase outputs, and stops everything when the test ends. It also
// holds a single-key wallet to build spends from mined outputs.
package kaspadtest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

const kaspadModule = "github.com/kaspanet/kaspad"

// Binaries are the paths of the built kaspad and kaspaminer.
type Binaries struct {
	Kaspad, Miner string
}

var (
	buildOnce sync.Once
	built     Binaries
	buildErr  error
)

// Build returns kaspad and kaspaminer built from the kaspad version the
// test binary links (go.mod's), building them on first use. They are
// cached under the user cache directory (os.UserCacheDir()/bridgelog/
// kaspad-<version>-<os>-<arch>), so a machine builds each version once; a
// lock file keeps concurrent test processes from building it twice. A
// failed build fails the test with the compiler's output and the fix.
func Build(t testing.TB) Binaries {
	t.Helper()
	buildOnce.Do(func() { built, buildErr = build() })
	if buildErr != nil {
		t.Fatalf("kaspadtest: %v", buildErr)
	}
	return built
}

func build() (Binaries, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	version, err := kaspadVersion(goTool)
	if err != nil {
		return Binaries{}, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return Binaries{}, fmt.Errorf("no user cache directory to keep kaspad in (set $XDG_CACHE_HOME or $HOME): %w", err)
	}
	root := filepath.Join(cache, "bridgelog")
	dir := filepath.Join(root, fmt.Sprintf("kaspad-%s-%s-%s", version, runtime.GOOS, runtime.GOARCH))
	bins := Binaries{Kaspad: filepath.Join(dir, "kaspad"), Miner: filepath.Join(dir, "kaspaminer")}
	if bins.present() {
		return bins, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return Binaries{}, err
	}
	unlock, err := lock(dir + ".lock")
	if err != nil {
		return Binaries{}, err
	}
	defer unlock()
	if bins.present() { // another process built it while this one waited
		return bins, nil
	}
	tmp, err := os.MkdirTemp(root, "build-")
	if err != nil {
		return Binaries{}, err
	}
	defer os.RemoveAll(tmp)
	// Run in the test's directory, inside this repository's module: the
	// build takes kaspad's version and dependencies from go.mod and go.sum
	// (go.mod lists kaspad and kaspaminer as tools for that).
	cmd := exec.Command(goTool, "build", "-o", tmp+string(filepath.Separator), kaspadModule, kaspadModule+"/cmd/kaspaminer")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Binaries{}, fmt.Errorf("building kaspad %s failed: %v\n%s\n"+
			"To fix: run the tests inside the bridgelog module with a Go toolchain (go on PATH); go.mod must require %s "+
			"and list it and %s/cmd/kaspaminer as tools (go get -tool), and the module cache or the Go module proxy must "+
			"provide their dependencies (go mod download). To check by hand: go build -o /tmp/kaspad-bin/ %s %s/cmd/kaspaminer",
			version, err, out, kaspadModule, kaspadModule, kaspadModule, kaspadModule)
	}
	if err := os.RemoveAll(dir); err != nil { // an incomplete earlier build
		return Binaries{}, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return Binaries{}, fmt.Errorf("keeping the kaspad build in %s: %w", dir, err)
	}
	if !bins.present() {
		return Binaries{}, fmt.Errorf("kaspad build in %s lacks kaspad or kaspaminer", dir)
	}
	return bins, nil
}

func (b Binaries) present() bool {
	for _, p := range []string{b.Kaspad, b.Miner} {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// kaspadVersion is the version of kaspad this module requires, a
// replaced module named by its replacement. (A test binary carries no
// dependency versions, so the go command is asked.)
func kaspadVersion(goTool string) (string, error) {
	out, err := exec.Command(goTool, "list", "-m", "-json", kaspadModule).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return "", fmt.Errorf("finding the kaspad version (go list -m %s): %v\n%s\n"+
			"To fix: run the tests inside the bridgelog module, whose go.mod requires %s, with go on PATH",
			kaspadModule, err, stderr, kaspadModule)
	}
	var m struct {
		Version string
		Replace *struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("go list -m %s: %w", kaspadModule, err)
	}
	if m.Replace != nil {
		return "replaced-" + strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(m.Replace.Path+"@"+m.Replace.Version), nil
	}
	if m.Version == "" {
		return "", fmt.Errorf("go list -m %s: no version", kaspadModule)
	}
	return m.Version, nil
}

// lock takes an exclusive lock on path (released at process exit too).
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
