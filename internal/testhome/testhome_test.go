package testhome

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func goEnv(t *testing.T, names ...string) string {
	t.Helper()
	b, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Skip("no go tool:", err)
	}
	return string(b)
}

// A test home moves koff's places, not the Go tool's: a test that runs go
// build finds the module and build caches it was started with.
func TestSetKeepsTheGoToolsPlaces(t *testing.T) {
	names := []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOENV"}
	before := goEnv(t, names...)
	for _, k := range append(names, "HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME") {
		t.Setenv(k, os.Getenv(k)) // restored after
	}
	for _, k := range names {
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	if err := Set(dir); err != nil {
		t.Fatal(err)
	}
	if home, _ := os.UserHomeDir(); home != dir || !strings.HasPrefix(os.Getenv("XDG_STATE_HOME"), dir) || !strings.HasPrefix(os.Getenv("XDG_CONFIG_HOME"), dir) {
		t.Errorf("HOME %s, XDG_STATE_HOME %s, XDG_CONFIG_HOME %s: not in %s", home, os.Getenv("XDG_STATE_HOME"), os.Getenv("XDG_CONFIG_HOME"), dir)
	}
	if after := goEnv(t, names...); after != before {
		t.Errorf("the Go tool's places moved with the home:\n%s→\n%s", before, after)
	}
}
