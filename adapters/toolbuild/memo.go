package toolbuild

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Cached remembers what a program's build returned per user cache
// directory, so a process asks the go command (or looks at the disk)
// once: the package-level Build of kaspadproc and gethproc.
type Cached[T any] struct {
	// What names the program in errors ("geth").
	What string
	// Err is the caller's sentinel that every error wraps.
	Err error
	// Build finds or builds the program under root
	// (os.UserCacheDir()/bridgelog).
	Build func(ctx context.Context, root string, progress io.Writer) (T, error)

	mu    sync.Mutex
	built map[string]T
}

// Get returns the program, building it on first use. progress may be nil.
func (c *Cached[T]) Get(ctx context.Context, progress io.Writer) (T, error) {
	var zero T
	cache, err := os.UserCacheDir()
	if err != nil {
		return zero, fmt.Errorf("%w: no user cache directory to keep %s in (set $XDG_CACHE_HOME or $HOME): %v", c.Err, c.What, err)
	}
	if progress == nil {
		progress = io.Discard
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.built[cache]; ok {
		return b, nil
	}
	b, err := c.Build(ctx, filepath.Join(cache, "bridgelog"), progress)
	if err != nil {
		return zero, err
	}
	if c.built == nil {
		c.built = map[string]T{}
	}
	c.built[cache] = b
	return b, nil
}
