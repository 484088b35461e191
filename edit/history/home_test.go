package history

import (
	"os"
	"testing"

	"koff/internal/testhome"
)

// Every test here runs in a home of its own: none reads or writes the
// user's audit log, contexts or host key.
func TestMain(m *testing.M) { os.Exit(testhome.Main(m)) }
