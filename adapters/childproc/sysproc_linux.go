package childproc

import "syscall"

// childAttributes: the kernel sends the child SIGKILL when its parent
// dies, so a crashed or killed bridgelog leaves no child behind.
// (Pdeathsig follows the thread that started the child; the Go runtime
// does not end its threads, except those of a goroutine that exits
// locked to its thread, which no caller here does.)
func childAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
