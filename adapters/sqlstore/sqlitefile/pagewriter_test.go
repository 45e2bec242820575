package sqlitefile

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// logTo returns a logger that writes text lines into buf.
func logTo(buf *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(buf, nil)) }

// fakeDirect stands for a file opened with O_DIRECT: it records what it
// was asked to write and answers with err (nil: writes into f).
type fakeDirect struct {
	f      *os.File
	err    error
	writes int
	closed bool
}

func (d *fakeDirect) WriteAt(b []byte, off int64) (int, error) {
	d.writes++
	if d.err != nil {
		return 0, d.err
	}
	return d.f.WriteAt(b, off)
}

func (d *fakeDirect) Close() error { d.closed = true; return nil }

// writePages sends bufs, at consecutive offsets from off, through w
// (keep: asking for the page cache) and returns the bytes the file must
// then hold from off.
func writePages(t *testing.T, w *pageWriter, off int64, keep bool, bufs ...[]byte) []byte {
	t.Helper()
	var want []byte
	for _, b := range bufs {
		if _, err := w.write(b, off, keep); err != nil {
			t.Fatal(err)
		}
		off += int64(len(b))
		want = append(want, b...)
	}
	return want
}

// newFile creates an empty file, closed when the test ends.
func newFile(t *testing.T) (*os.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path
}

func filled(b []byte, n int, v byte) []byte {
	b = b[:n]
	for i := range b {
		b[i] = v + byte(i/4096)
	}
	return b
}

// closeAndCheck closes w and wants the file at path to hold want at off.
func closeAndCheck(t *testing.T, w *pageWriter, path string, off int64, want []byte) {
	t.Helper()
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(got)) < off+int64(len(want)) || !bytes.Equal(got[off:off+int64(len(want))], want) {
		t.Fatal("file does not hold the pages written")
	}
}

func TestPageWriterDirect(t *testing.T) {
	t.Run("aligned buffers go direct, unaligned ones and those to keep through the page cache", func(t *testing.T) {
		f, path := newFile(t)
		real, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		d := &fakeDirect{f: real}
		var logged bytes.Buffer
		w := startPageWriter(f, d, logTo(&logged))
		unaligned := make([]byte, 3*4096+1)[1:] // its memory is not 4096-aligned
		want := writePages(t, w, 4096, false,
			filled(newPageBuf(), 2*4096, 1),
			filled(unaligned, 3*4096, 10),
			filled(newPageBuf(), 4096, 20))
		want = append(want, writePages(t, w, int64(4096+len(want)), true, filled(newPageBuf(), 4096, 30))...)
		closeAndCheck(t, w, path, 4096, want)
		if d.writes != 2 || !d.closed {
			t.Fatalf("direct writes %d (want the 2 aligned buffers), closed %v", d.writes, d.closed)
		}
		if logged.Len() > 0 {
			t.Fatalf("nothing was refused, yet: %s", logged.String())
		}
	})
	t.Run("a refused direct write goes through the page cache, and so do later ones", func(t *testing.T) {
		f, path := newFile(t)
		d := &fakeDirect{err: syscall.EINVAL}
		var logged bytes.Buffer
		w := startPageWriter(f, d, logTo(&logged))
		want := writePages(t, w, 0, false, filled(newPageBuf(), 4096, 1), filled(newPageBuf(), 2*4096, 5))
		closeAndCheck(t, w, path, 0, want)
		if d.writes != 1 || !d.closed {
			t.Fatalf("direct writes %d (want 1, then none), closed %v", d.writes, d.closed)
		}
		// One warning, naming the file and the offset.
		if l := logged.String(); strings.Count(l, "level=WARN") != 1 || !strings.Contains(l, "direct write refused") ||
			!strings.Contains(l, path) || !strings.Contains(l, "offset=0") {
			t.Fatalf("log after a refusal: %q", l)
		}
	})
	t.Run("another direct write error fails the append", func(t *testing.T) {
		f, _ := newFile(t)
		w := startPageWriter(f, &fakeDirect{err: syscall.ENOSPC}, logTo(&bytes.Buffer{}))
		writePages(t, w, 0, false, filled(newPageBuf(), 4096, 1))
		if err := w.close(); !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("close: %v, want ENOSPC", err)
		}
	})
	t.Run("the real file", func(t *testing.T) {
		f, path := newFile(t)
		var logged bytes.Buffer
		w := newPageWriter(f, logTo(&logged))
		if runtime.GOOS == "linux" {
			// The temp dir here is on a disk file system; tmpfs refuses
			// O_DIRECT, and then every write goes through the page cache.
			t.Logf("direct writes: %v", w.direct != nil)
		}
		// Without direct writes the operator is told why.
		if warned := strings.Contains(logged.String(), "direct writes unavailable"); warned != (w.direct == nil) {
			t.Fatalf("direct writes %v, log: %q", w.direct != nil, logged.String())
		}
		want := writePages(t, w, 0, false, filled(newPageBuf(), flushBytes, 1), filled(newPageBuf(), 4096, 7))
		closeAndCheck(t, w, path, 0, want)
	})
}
