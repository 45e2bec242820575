package gethproc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Version is the go-ethereum release geth is built from. The bridgelog
// module links a newer go-ethereum whose geth does not build (one of its
// dependencies' versions is refused by the module proxy), so geth comes
// from a module of its own, deploy/geth, which pins this version.
const Version = "v1.17.5"

const (
	gethPackage = "github.com/ethereum/go-ethereum/cmd/geth"
	// sourceModule is deploy/geth's directory, relative to the bridgelog
	// module's root.
	sourceModule = "deploy/geth"
)

// ErrBuild: geth could not be built; the error says why and how to fix it.
var ErrBuild = errors.New("cannot build geth")

// Binary is the path of a built geth.
type Binary string

// built remembers the binary found or built per cache directory, so a
// process asks the go command once.
var (
	buildMu sync.Mutex
	built   = map[string]Binary{}
)

// Build returns geth of Version, building it on first use into the user
// cache directory (os.UserCacheDir()/bridgelog/geth-<version>-<os>-<arch>),
// so a machine builds it once (about 150 s and the module downloads); a
// lock file keeps concurrent processes from building it twice. It writes
// one line to progress when it builds (or waits for another process's
// build), nothing when the binary is there.
//
// Inside a bridgelog source checkout (a test binary runs in one) the build
// uses deploy/geth's go.mod and go.sum; elsewhere it is a go install of
// Version through the Go module proxy. Either way it takes a Go toolchain.
func Build(ctx context.Context, progress io.Writer) (Binary, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%w: no user cache directory to keep geth in (set $XDG_CACHE_HOME or $HOME): %v", ErrBuild, err)
	}
	if progress == nil {
		progress = io.Discard
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if b, ok := built[cache]; ok {
		return b, nil
	}
	b, err := build(ctx, filepath.Join(cache, "bridgelog"), progress)
	if err != nil {
		return "", err
	}
	built[cache] = b
	return b, nil
}

func build(ctx context.Context, root string, progress io.Writer) (Binary, error) {
	goTool, err := findGo()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, fmt.Sprintf("geth-%s-%s-%s", Version, runtime.GOOS, runtime.GOARCH))
	bin := Binary(filepath.Join(dir, "geth"))
	if bin.present() {
		return bin, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBuild, err)
	}
	unlock, err := lock(ctx, dir+".lock", func() {
		fmt.Fprintf(progress, "waiting for another process building geth %s into %s…\n", Version, dir)
	})
	if err != nil {
		return "", err
	}
	defer unlock()
	if bin.present() { // another process built it while this one waited
		return bin, nil
	}
	module := sourceDir(ctx, goTool)
	from := "the Go module proxy"
	if module != "" {
		from = module
	}
	fmt.Fprintf(progress, "building geth %s from %s (first use, about three minutes)…\n", Version, from)
	tmp, err := os.MkdirTemp(root, "build-")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBuild, err)
	}
	defer os.RemoveAll(tmp)
	if err := compile(ctx, goTool, module, tmp); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil { // an incomplete earlier build
		return "", fmt.Errorf("%w: %v", ErrBuild, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("%w: keeping the build in %s: %v", ErrBuild, dir, err)
	}
	if !bin.present() {
		return "", fmt.Errorf("%w: the build in %s lacks geth", ErrBuild, dir)
	}
	return bin, nil
}

// compile builds geth into dir: in module (deploy/geth) when there is one,
// else by go install of Version.
func compile(ctx context.Context, goTool, module, dir string) error {
	var cmd *exec.Cmd
	if module != "" {
		cmd = exec.CommandContext(ctx, goTool, "build", "-o", dir+string(filepath.Separator), gethPackage)
		cmd.Dir = module
		cmd.Env = append(os.Environ(), "GOWORK=off")
	} else {
		cmd = exec.CommandContext(ctx, goTool, "install", gethPackage+"@"+Version)
		cmd.Dir = dir // outside any module
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOWORK=off")
	}
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: build abandoned: %w", ErrBuild, ctx.Err())
	}
	if module != "" {
		return fmt.Errorf("%w %s in %s: go build: %v\n%s\nTo fix: %s/go.mod must require go-ethereum %s and list %s as a tool, "+
			"and the module cache or the Go module proxy must provide its dependencies (cd %s && go mod download). "+
			"To check by hand: cd %s && go build -o /tmp/geth-bin/ %s",
			ErrBuild, Version, module, err, out, module, Version, gethPackage, module, module, gethPackage)
	}
	return fmt.Errorf("%w %s: go install: %v\n%s\nTo fix: let the go command reach the Go module proxy (go env GOPROXY) "+
		"to download go-ethereum %s and its dependencies, or run inside a bridgelog source checkout, whose %s/go.mod pins them. "+
		"To check by hand: go install %s@%s",
		ErrBuild, Version, err, out, Version, sourceModule, gethPackage, Version)
}

// sourceDir is deploy/geth of the bridgelog checkout the working directory
// is in, "" outside one.
func sourceDir(ctx context.Context, goTool string) string {
	cmd := exec.CommandContext(ctx, goTool, "env", "GOMOD")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return ""
	}
	dir := filepath.Join(filepath.Dir(gomod), filepath.FromSlash(sourceModule))
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return ""
	}
	return dir
}

func findGo() (string, error) {
	goTool, err := exec.LookPath("go")
	if err == nil {
		return goTool, nil
	}
	goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, statErr := os.Stat(goTool); statErr != nil {
		return "", fmt.Errorf("%w: geth is built from source on first use, which takes a Go toolchain, "+
			"and there is no go on PATH (%v). To fix: install Go (https://go.dev/dl/) and put its bin directory on PATH", ErrBuild, err)
	}
	return goTool, nil
}

func (b Binary) present() bool {
	fi, err := os.Stat(string(b))
	return err == nil && fi.Mode()&0o111 != 0
}

// lock takes an exclusive lock on path (released at process exit too),
// calling waiting once when another process holds it.
func lock(ctx context.Context, path string, waiting func()) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBuild, err)
	}
	for told := false; ; {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("%w: locking %s: %v", ErrBuild, path, err)
		}
		if !told {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("%w: waiting for %s: %w", ErrBuild, path, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
