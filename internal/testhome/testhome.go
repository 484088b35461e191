// Package testhome gives a package's tests a home of their own: koff falls
// back to $HOME (and $XDG_STATE_HOME, $XDG_CONFIG_HOME) for its audit log,
// contexts and host key, and a test that ran koff with an empty
// environment read, and wrote, the user's own. Every package whose tests
// run koff or the edit pipeline calls Main from its TestMain.
package testhome

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// Main runs m with HOME, XDG_STATE_HOME and XDG_CONFIG_HOME pointing into a
// fresh directory, removed after. It fails the run when this process wrote
// a line to the audit log of the home the tests were started with (a test
// reached the user's own state), and says so when koff's files there
// changed meanwhile (another koff, or a test, wrote them).
func Main(m *testing.M) int {
	real := koffDirs()
	before := snapshot(real)
	dir, err := os.MkdirTemp("", "koff-test-home")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := Set(dir); err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		return 1
	}
	code := m.Run()
	changed := before.changed(snapshot(real))
	if len(changed) == 0 {
		return code
	}
	if ours := before.oursIn(changed); len(ours) > 0 {
		fmt.Fprintf(os.Stderr, "testhome: a test wrote to the user's own audit log: %s (every test must use its own HOME and XDG directories)\n", strings.Join(ours, "; "))
		if code == 0 {
			code = 1
		}
		return code
	}
	fmt.Fprintf(os.Stderr, "testhome: note: the user's own koff files changed during the tests, not by this process: %v\n", changed)
	return code
}

// Set points HOME, XDG_STATE_HOME and XDG_CONFIG_HOME into dir. The Go
// tool's own places, which it derives from the home, stay where they are:
// a test that runs go build or go list must find the module and build
// caches (offline in CI) and the go env file it was started with.
func Set(dir string) error {
	for k, v := range goPlaces() {
		if os.Getenv(k) != "" || v == "" {
			continue
		}
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	for k, v := range map[string]string{
		"HOME":            dir,
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
	} {
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// files is what koff keeps in a home: each file's size and time.
type files map[string]fileState

type fileState struct {
	size int64
	time time.Time
}

// koffDirs are koff's state and config directories as the environment
// names them now (the home the tests were started with).
func koffDirs() []string {
	// Both the XDG directories and the home's defaults: koff run with an
	// empty environment falls back to the home.
	dirs := []string{os.Getenv("XDG_STATE_HOME"), os.Getenv("XDG_CONFIG_HOME")}
	if home, _ := os.UserHomeDir(); home != "" {
		dirs = append(dirs, filepath.Join(home, ".local", "state"), filepath.Join(home, ".config"))
	}
	var out []string
	for _, d := range dirs {
		if d != "" && !slices.Contains(out, filepath.Join(d, "koff")) {
			out = append(out, filepath.Join(d, "koff"))
		}
	}
	return out
}

// snapshot is every file under dirs with its size and time.
func snapshot(dirs []string) files {
	out := files{}
	for _, dir := range dirs {
		_ = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				out[path] = fileState{fi.Size(), fi.ModTime()}
			}
			return nil
		})
	}
	return out
}

func (f files) changed(now files) []string {
	var out []string
	for p, v := range now {
		if w, ok := f[p]; !ok || w.size != v.size || !w.time.Equal(v.time) {
			out = append(out, p)
		}
	}
	for p := range f {
		if _, ok := now[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// oursIn are the lines this process appended to an audit log among
// changed: each names the pid and host of the koff that wrote it.
func (f files) oursIn(changed []string) []string {
	host, _ := os.Hostname()
	var out []string
	for _, path := range changed {
		if filepath.Ext(path) != ".jsonl" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil || int64(len(b)) < f[path].size {
			continue
		}
		for _, line := range strings.Split(string(b[f[path].size:]), "\n") {
			var who struct {
				PID  int    `json:"pid"`
				Host string `json:"host"`
			}
			if json.Unmarshal([]byte(line), &who) == nil && who.PID == os.Getpid() && who.Host == host {
				out = append(out, path+": "+line)
			}
		}
	}
	return out
}

// goPlaces are the Go tool's paths as it sees them now (its env file
// included), or as it derives them from the home when it cannot say.
func goPlaces() map[string]string {
	names := []string{"GOENV", "GOPATH", "GOMODCACHE", "GOCACHE"}
	out := map[string]string{}
	if b, err := exec.Command("go", append([]string{"env"}, names...)...).Output(); err == nil {
		if vals := strings.Split(strings.TrimRight(string(b), "\n"), "\n"); len(vals) == len(names) {
			for i, k := range names {
				out[k] = vals[i]
			}
			return out
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		out["GOPATH"] = filepath.Join(home, "go")
	}
	if cache, err := os.UserCacheDir(); err == nil {
		out["GOCACHE"] = filepath.Join(cache, "go-build")
	}
	if config, err := os.UserConfigDir(); err == nil {
		out["GOENV"] = filepath.Join(config, "go", "env")
	}
	return out
}
