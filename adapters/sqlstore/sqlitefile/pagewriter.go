package sqlitefile

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// pageWriter writes full buffers of pages on its own goroutine, so that
// copying them into the file overlaps with building the next ones. One
// buffer is written while the next is filled.
//
// Where the file system allows, a buffer without pages to keep bypasses
// the page cache (O_DIRECT): nothing reads table leaves back during the
// append, and taking new page-cache memory was most of the write's cost
// (on this project's VMs up to 4 s of system time per GB, against 0.2 s
// written directly). Commit's fsync makes them durable either way. A
// buffer that is not aligned for it, or a direct write the file system
// refuses, goes through the page cache; after a refusal every later one
// does. Either refusal is logged as a warning: the append is then slower
// and takes page-cache memory, so an operator should know why.
type pageWriter struct {
	f      *os.File
	direct directFile // nil: every write goes through the page cache
	log    *slog.Logger
	queue  chan pendingWrite
	free   chan []byte
	done   chan struct{}
	mu     sync.Mutex
	err    error // the first failed write; later ones are skipped
}

// directFile is the file opened for direct writes.
type directFile interface {
	io.WriterAt
	io.Closer
}

type pendingWrite struct {
	buf  []byte
	off  int64
	keep bool // through the page cache
}

// directAlign is the alignment of a direct write's memory, offset and
// length: the largest logical block size in use.
const directAlign = 4096

// newPageBuf returns an empty buffer of flushBytes capacity whose memory
// is aligned for direct writes.
func newPageBuf() []byte {
	b := make([]byte, flushBytes+directAlign)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (directAlign - 1))
	return b[skip : skip : skip+flushBytes]
}

func directAligned(buf []byte, off int64) bool {
	return uintptr(unsafe.Pointer(unsafe.SliceData(buf)))%directAlign == 0 &&
		off%directAlign == 0 && len(buf)%directAlign == 0
}

func newPageWriter(f *os.File, log *slog.Logger) *pageWriter {
	d, err := openDirect(f.Name())
	if err != nil {
		log.Warn("sqlitefile direct writes unavailable, pages go through the page cache", "path", f.Name(), "err", err)
		return startPageWriter(f, nil, log)
	}
	return startPageWriter(f, d, log)
}

// startPageWriter starts a writer to f that writes directly through
// direct (nil: never).
func startPageWriter(f *os.File, direct directFile, log *slog.Logger) *pageWriter {
	w := &pageWriter{f: f, direct: direct, log: log, queue: make(chan pendingWrite), free: make(chan []byte, 1), done: make(chan struct{})}
	w.free <- newPageBuf()
	go func() {
		defer close(w.done)
		for p := range w.queue {
			if w.failed() == nil {
				if err := w.writeAt(p.buf, p.off, p.keep); err != nil {
					w.mu.Lock()
					w.err = fmt.Errorf("writing at offset %d: %w", p.off, err)
					w.mu.Unlock()
				}
			}
			w.free <- p.buf[:0]
		}
		if w.direct != nil {
			w.direct.Close()
		}
	}()
	return w
}

func (w *pageWriter) writeAt(buf []byte, off int64, keep bool) error {
	if !keep && w.direct != nil && directAligned(buf, off) {
		_, err := w.direct.WriteAt(buf, off)
		if !errors.Is(err, syscall.EINVAL) {
			return err
		}
		w.log.Warn("sqlitefile direct write refused, this and later pages go through the page cache", "path", w.f.Name(), "offset", off, "err", err)
		w.direct.Close()
		w.direct = nil
	}
	if _, err := w.f.WriteAt(buf, off); err != nil {
		return err
	}
	startWriteback(w.f, off, int64(len(buf)))
	return nil
}

func (w *pageWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// write hands buf (to be written at off, through the page cache if keep)
// to the goroutine and returns an empty buffer to fill next.
func (w *pageWriter) write(buf []byte, off int64, keep bool) ([]byte, error) {
	if err := w.failed(); err != nil {
		return nil, err
	}
	next := <-w.free
	w.queue <- pendingWrite{buf: buf, off: off, keep: keep}
	return next, nil
}

// close waits for the queued writes and returns the first error.
func (w *pageWriter) close() error {
	close(w.queue)
	<-w.done
	return w.failed()
}
