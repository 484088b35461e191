//go:build unix

package audit

import (
	"errors"
	"os"
	"syscall"
)

// lockFile holds an exclusive lock on the audit log while a line is
// appended: another koff appending at the same time waits. A file system
// without locks (some NFS) is no reason to refuse an edit: the append
// goes on unlocked, each line still whole and on a fresh line.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	if errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
