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

	"github.com/bridgelog/bridgelog/adapters/toolbuild"
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
	return cached.Get(ctx, progress)
}

// cached is what Build found or built, per user cache directory.
var cached = toolbuild.Cached[Binary]{What: "geth", Err: ErrBuild, Build: build}

func build(ctx context.Context, root string, progress io.Writer) (Binary, error) {
	dir := filepath.Join(root, fmt.Sprintf("geth-%s-%s-%s", Version, runtime.GOOS, runtime.GOARCH))
	bin := Binary(filepath.Join(dir, "geth"))
	if bin.present() { // no Go toolchain needed
		return bin, nil
	}
	goTool, err := toolbuild.GoTool("geth")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrBuild, err)
	}
	module := sourceDir(ctx, goTool)
	from := "the Go module proxy"
	if module != "" {
		from = module
	}
	err = toolbuild.Job{Dir: dir, Err: ErrBuild, Present: bin.present,
		Waiting:  fmt.Sprintf("waiting for another process building geth %s into %s…", Version, dir),
		Building: fmt.Sprintf("building geth %s from %s (first use, about three minutes)…", Version, from),
		Compile:  func(ctx context.Context, into string) error { return compile(ctx, goTool, module, into) },
	}.Run(ctx, progress)
	if err != nil {
		return "", err
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

func (b Binary) present() bool { return toolbuild.Executables(string(b)) }
