//go:build unix

package edit

import (
	"os"
	"syscall"
)

// lockFile holds an exclusive lock on the audit log while a line is
// appended: another koff appending at the same time waits.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
