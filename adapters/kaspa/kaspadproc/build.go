package kaspadproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/bridgelog/bridgelog/adapters/toolbuild"
)

const kaspadModule = "github.com/kaspanet/kaspad"

// ErrBuild: kaspad and kaspaminer could not be built; the error says why
// and how to fix it.
var ErrBuild = errors.New("cannot build kaspad")

// Binaries are the paths of a built kaspad and kaspaminer.
type Binaries struct {
	Kaspad, Miner string
}

// Build returns kaspad and kaspaminer of the kaspad version bridgelog
// requires, building them on first use into the user cache directory
// (os.UserCacheDir()/bridgelog/kaspad-<version>-<os>-<arch>), so a
// machine builds each version once; a lock file keeps concurrent
// processes from building it twice. It writes one line to progress when
// it builds (or waits for another process's build), nothing when the
// binaries are there.
//
// The version is the one the running binary links; a test binary, which
// records no dependency versions, takes the working directory's module's.
// Inside the bridgelog module the build uses its go.mod and go.sum (which
// list kaspad and kaspaminer as tools); elsewhere it is a go install of
// that version through the Go module proxy. Either way it takes a Go
// toolchain.
func Build(ctx context.Context, progress io.Writer) (Binaries, error) {
	return cached.Get(ctx, progress)
}

// cached is what Build found or built, per user cache directory.
var cached = toolbuild.Cached[Binaries]{What: "kaspad", Err: ErrBuild, Build: build}

// source is where a kaspad version is built from.
type source struct {
	goTool  string
	version string // names the cache directory
	// install: go install of the tagged version (outside the module);
	// else go build in the working directory's module.
	install bool
}

func build(ctx context.Context, root string, progress io.Writer) (Binaries, error) {
	src, err := findSource(ctx)
	if err != nil {
		return Binaries{}, err
	}
	dir := filepath.Join(root, fmt.Sprintf("kaspad-%s-%s-%s", src.version, runtime.GOOS, runtime.GOARCH))
	bins := Binaries{Kaspad: filepath.Join(dir, "kaspad"), Miner: filepath.Join(dir, "kaspaminer")}
	from := "the Go module cache"
	if src.install {
		from = "the Go module proxy"
	}
	err = toolbuild.Job{Dir: dir, Err: ErrBuild, Present: bins.present,
		Waiting:  fmt.Sprintf("waiting for another process building kaspad %s into %s…", src.version, dir),
		Building: fmt.Sprintf("building kaspad %s and kaspaminer from %s (first use, about a minute)…", src.version, from),
		Compile:  src.compile,
	}.Run(ctx, progress)
	if err != nil {
		return Binaries{}, err
	}
	return bins, nil
}

// compile builds both binaries into dir.
func (s source) compile(ctx context.Context, dir string) error {
	pkgs := []string{kaspadModule, kaspadModule + "/cmd/kaspaminer"}
	var cmd *exec.Cmd
	if s.install {
		cmd = exec.CommandContext(ctx, s.goTool, "install", pkgs[0]+"@"+s.version, pkgs[1]+"@"+s.version)
		cmd.Dir = dir // outside any module
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOWORK=off")
	} else {
		cmd = exec.CommandContext(ctx, s.goTool, append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	}
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%w: build abandoned: %w", ErrBuild, ctx.Err())
	}
	if s.install {
		return fmt.Errorf("%w %s: go install: %v\n%s\nTo fix: let the go command reach the Go module proxy (go env GOPROXY) "+
			"to download kaspad %s and its dependencies, or run bridgelog once inside a bridgelog source checkout, whose "+
			"go.mod pins them. To check by hand: go install %s@%s %s@%s",
			ErrBuild, s.version, err, out, s.version, pkgs[0], s.version, pkgs[1], s.version)
	}
	return fmt.Errorf("%w %s: go build: %v\n%s\nTo fix: go.mod must require %s and list it and %s as tools "+
		"(go get -tool %s@%s %s@%s), and the module cache or the Go module proxy must provide their dependencies "+
		"(go mod download). To check by hand: go build -o /tmp/kaspad-bin/ %s %s",
		ErrBuild, s.version, err, out, pkgs[0], pkgs[1], pkgs[0], s.version, pkgs[1], s.version, pkgs[0], pkgs[1])
}

func (b Binaries) present() bool { return toolbuild.Executables(b.Kaspad, b.Miner) }

// findSource decides what to build: the linked version, in the working
// directory's module when it requires the same one, else by go install.
func findSource(ctx context.Context) (source, error) {
	goTool, err := toolbuild.GoTool("kaspad and kaspaminer")
	if err != nil {
		return source{}, fmt.Errorf("%w: %w", ErrBuild, err)
	}
	linked, replaced := linkedVersion()
	mod, modErr := moduleVersion(ctx, goTool)
	switch {
	case modErr == nil && (linked == "" || linked == mod):
		return source{goTool: goTool, version: mod}, nil
	case linked != "" && !replaced:
		return source{goTool: goTool, version: linked, install: true}, nil
	case modErr != nil:
		return source{}, modErr
	}
	return source{}, fmt.Errorf("%w: this binary links kaspad %s, a replaced module, and the working directory's module requires %s: "+
		"run it inside the module it was built from", ErrBuild, linked, mod)
}

// linkedVersion is the kaspad version the running binary links; "" for a
// test binary, which records no dependencies.
func linkedVersion() (version string, replaced bool) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", false
	}
	for _, d := range info.Deps {
		if d.Path == kaspadModule {
			if d.Replace != nil {
				return replacedName(d.Replace.Path, d.Replace.Version), true
			}
			return d.Version, false
		}
	}
	return "", false
}

// moduleVersion is the version of kaspad the working directory's module
// requires, a replaced module named by its replacement.
func moduleVersion(ctx context.Context, goTool string) (string, error) {
	cmd := exec.CommandContext(ctx, goTool, "list", "-m", "-json", kaspadModule)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return "", fmt.Errorf("%w: finding the kaspad version (go list -m %s): %v\n%s\n"+
			"To fix: run inside the bridgelog module, whose go.mod requires %s, with go on PATH",
			ErrBuild, kaspadModule, err, stderr, kaspadModule)
	}
	var m struct {
		Version string
		Replace *struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return "", fmt.Errorf("%w: go list -m %s: %v", ErrBuild, kaspadModule, err)
	}
	if m.Replace != nil {
		return replacedName(m.Replace.Path, m.Replace.Version), nil
	}
	if m.Version == "" {
		return "", fmt.Errorf("%w: go list -m %s: no version", ErrBuild, kaspadModule)
	}
	return m.Version, nil
}

func replacedName(path, version string) string {
	return "replaced-" + strings.NewReplacer("/", "_", "\\", "_", ":", "_").Replace(path+"@"+version)
}
