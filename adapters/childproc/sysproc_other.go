//go:build unix && !linux

package childproc

import "syscall"

// childAttributes: no parent-death signal outside Linux; Stop (and the
// caller's signal handling) ends the children.
func childAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
