package demo

import (
	"crypto/rand"
	"encoding/hex"
)

// newClusterID is a demo broker's own cluster id, koff-demo-<8 hex>: each
// demo is another cluster, so the audit log never offers one demo's edit
// for undo on another, nor announces its interrupted edit there.
func newClusterID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "koff-demo-" + hex.EncodeToString(b[:])
}
