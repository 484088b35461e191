//go:build unix

package audit

import "syscall"

// processAlive: signal 0 checks that a process exists without touching it.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
