//go:build !unix

package audit

import "os"

// lockFile: no advisory lock here; appends within one koff are still
// serialised by the AuditLog's mutex.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) {}
