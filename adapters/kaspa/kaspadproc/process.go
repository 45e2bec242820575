package kaspadproc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is a child process with its output in a file.
type process struct {
	cmd  *exec.Cmd
	out  string
	done chan struct{} // closed when it exited
	err  error         // how it exited, once done
}

// startProcess starts bin with its stdout and stderr in the file out. The
// child is in its own process group, so a terminal's Ctrl-C reaches only
// the parent, which stops its children in order; on Linux it is killed
// when the parent dies (childAttributes).
func startProcess(bin string, args []string, out string, env []string) (*process, error) {
	f, err := os.Create(out)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = childAttributes()
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &process{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has exited.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop interrupts the process (SIGINT: kaspad closes its database) and
// kills it when it has not exited within grace; the error says it had
// to be killed.
func (p *process) stop(grace time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not exit within %s of SIGINT and was killed (output: %s)", filepath.Base(p.cmd.Path), grace, p.out)
	}
}

// tail is the last lines of a file.
func tail(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	parts := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return string(bytes.Join(parts, []byte("\n")))
}
