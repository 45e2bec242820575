// Package childproc runs child processes that do not outlive their
// parent: each in its own process group (a terminal's Ctrl-C reaches only
// the parent, which stops its children in order), killed by the kernel
// when the parent dies (Linux), with its output in a file, stopped by
// SIGINT and killed after a grace period. bridgelog's devnet runs kaspad,
// kaspaminer and signer processes this way, and so do the tests.
package childproc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/bridgelog/bridgelog/adapters/ownerfs"
)

// Process is a child process with its output in a file.
type Process struct {
	cmd  *exec.Cmd
	out  string
	done chan struct{} // closed when it exited
	err  error         // how it exited, once done
}

// Start starts bin with its stdout and stderr in the file out. The
// child is in its own process group, so a terminal's Ctrl-C reaches only
// the parent, which stops its children in order; on Linux it is killed
// when the parent dies (childAttributes).
func Start(bin string, args []string, out string, env []string) (*Process, error) {
	// The output is a node's or a signer's log, kept in a data directory.
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, ownerfs.FileMode)
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
	p := &Process{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the child's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Output is the file holding the child's stdout and stderr.
func (p *Process) Output() string { return p.out }

// Done is closed when the child has exited; Err then says how.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is how the child exited, once Done is closed.
func (p *Process) Err() error { return p.err }

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop interrupts the process (SIGINT: kaspad closes its database) and
// kills it when it has not exited within grace; the error says it had
// to be killed.
func (p *Process) Stop(grace time.Duration) error {
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

// Kill kills the process (SIGKILL) and waits until it has exited: a
// crash, for the tests that recover from one.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Tail is the last lines of a file (an output file): the cause of a
// failure, for an error message.
func Tail(path string, lines int) string {
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
