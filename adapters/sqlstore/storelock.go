package sqlstore

import (
	"errors"
	"fmt"
	"os"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
)

// ErrStoreInUse: the SQLite store is being replaced by an offline replay,
// or (for the replay) another process has it open.
var ErrStoreInUse = errors.New("store is in use")

// ErrNoStore: a read-only open found no store; it creates none.
var ErrNoStore = errors.New("no projection store")

// storeLock is a lock on the file beside a SQLite store (path + ".lock").
// Every open of the store holds it shared; replacing the store file
// holds it exclusively, so no process writes to a file that is about to
// be replaced (its writes would go to the old file and be lost). The lock
// file is never removed: a process could be about to lock it.
type storeLock struct {
	f *os.File
}

func lockPath(store string) string { return store + ".lock" }

// lockStore takes the store's lock, shared or exclusive, without waiting.
func lockStore(store string, exclusive bool) (*storeLock, error) {
	f, err := os.OpenFile(lockPath(store), os.O_RDWR|os.O_CREATE, ownerfs.FileMode)
	if err != nil {
		return nil, fmt.Errorf("store %s: lock: %w", store, err)
	}
	if err := flockFile(f, exclusive); err != nil {
		f.Close()
		if errors.Is(err, ErrStoreInUse) {
			if exclusive {
				return nil, fmt.Errorf("store %s: %w by another process (stop the relay and other bridgelog commands on it first)", store, err)
			}
			return nil, fmt.Errorf("store %s: %w: an offline replay is replacing it; open it when the replay is done", store, err)
		}
		return nil, fmt.Errorf("store %s: lock %s: %w", store, lockPath(store), err)
	}
	return &storeLock{f: f}, nil
}

// release drops the lock (closing the file drops it).
func (l *storeLock) release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
