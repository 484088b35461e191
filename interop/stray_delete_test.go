package interop

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// TestDeleteThisStrayCopyOnly: the dashboard's "delete this stray copy
// only", on the real worker. Two hand-written copies of a file
// connector's partition under other key bytes (spaces; escaped slashes),
// one in a partition the worker's read (KafkaBasedLog, one poll of all 25
// partitions) takes before the task's own key and one after, are each
// deleted from the dashboard: the Changes line names the stray copy →
// (deleted), enter applies it with the connector as it is, and koff reads
// it back. Restarted, the real task reads the live value: it continues
// with the line after it.
func TestDeleteThisStrayCopyOnly(t *testing.T) {
	s := realStack(t)
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	bin := filepath.Join(t.TempDir(), "koff")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// The copies go to a partition the worker's read takes before the
	// task's own key and to one it takes after; a key whose partition is
	// read first or last of all has no such pair, so the connector's name
	// (and with it its file and key) is chosen until it has one.
	var home, before, after int
	name := "hand-copies"
	for i := 2; ; i++ {
		key := fmt.Sprintf(`["%s",{"filename":"%s"}]`, name, filepath.Join(s.FilesDir, name+".txt"))
		if home, before, after = readAround(key); before >= 0 && after >= 0 {
			break
		}
		name = fmt.Sprintf("hand-copies-%d", i)
	}
	f := s.newFileConnector(t, name, 10)
	s.stop(t, f.name)
	if canon := f.key(); java.PartitionFor([]byte(canon), 25) != home {
		t.Fatalf("the task's key %s is not in partition %d", canon, home)
	}
	spaced := fmt.Sprintf(`["%s", {"filename": "%s"}]`, f.name, f.path)
	escaped := fmt.Sprintf(`["%s",{"filename":"%s"}]`, f.name, strings.ReplaceAll(f.path, "/", `\/`))
	s.produceOffset(t, before, spaced, f.position(2))
	s.produceOffset(t, after, escaped, f.position(3))
	f.append(t, 11)
	if table := mustKoff(t, s.withTopic("get", f.name)...); strings.Count(table, "stray") < 2 {
		t.Fatalf("koff get does not flag both copies as strays:\n%s", table)
	}

	name = fmt.Sprintf("koff-interop-%d", time.Now().UnixNano())
	run := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-L", name}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("new-session", "-d", "-s", name, "-x", "120", "-y", "40", fmt.Sprintf("NO_COLOR=1 %s -b %s --connect-url %s --audit-log %s; sleep 30",
		bin, s.Bootstrap, s.ConnectURL, filepath.Join(t.TempDir(), "audit.jsonl")))
	t.Cleanup(func() { exec.Command(tmux, "-L", name, "kill-server").Run() })
	screen := func() string { return run("capture-pane", "-p", "-t", name) }
	waitFor := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			scr := screen()
			if ok(scr) {
				return scr
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	keys := func(k ...string) { run(append([]string{"send-keys", "-t", name}, k...)...) }
	waitFor("the connectors", func(scr string) bool { return strings.Contains(scr, f.name) })
	keys("/")
	run("send-keys", "-t", name, "-l", f.name)
	keys("Enter")
	keys("Enter")
	// The rows are there once the dashboard read the connector's offsets.
	waitFor("the partitions", func(scr string) bool { return strings.Contains(scr, fmt.Sprintf("connect-offsets/%d ", home)) })
	selected := func() string {
		for _, l := range strings.Split(screen(), "\n") {
			if strings.HasPrefix(l, "▶") {
				return l
			}
		}
		return ""
	}
	for _, stray := range []struct {
		tp    int
		value string
	}{{before, f.position(2)}, {after, f.position(3)}} {
		tp := fmt.Sprintf("connect-offsets/%d ", stray.tp)
		keys("Home")
		for i := 0; i < 6 && !strings.Contains(selected(), tp); i++ {
			keys("Down")
			time.Sleep(300 * time.Millisecond)
		}
		if !strings.Contains(selected(), tp) {
			t.Fatalf("no row of %s:\n%s", tp, screen())
		}
		keys("x")
		waitFor("the stray dialog", func(scr string) bool { return strings.Contains(scr, "A stray copy") })
		keys("d")
		scr := waitFor("the confirmation", func(scr string) bool { return strings.Contains(scr, "Delete a stray copy") })
		if !strings.Contains(scr, fmt.Sprintf("stray copy in connect-offsets/%d: %s → (deleted)", stray.tp, stray.value)) || !strings.Contains(scr, "enter apply") {
			t.Fatalf("the confirmation does not say the stray copy → deleted:\n%s", scr)
		}
		keys("Enter")
		waitFor("the verified delete", func(scr string) bool { return strings.Contains(scr, "deleted a stray copy: 1 partition of "+f.name) })
	}
	if table := mustKoff(t, s.withTopic("get", f.name)...); strings.Contains(table, "stray") {
		t.Errorf("koff get still shows a stray:\n%s", table)
	}
	if got := f.resumeAndNext(t); got != f.name+"-11" {
		t.Errorf("after the strays were deleted, the restarted task continued with %q, not from the live value (line 11)", got)
	}
}

// readAround is the partition of key among connect-offsets' 25, a partition
// the worker's read (one poll of all 25) takes before it and one it takes
// after (-1 when there is none).
func readAround(key string) (home, before, after int) {
	home = java.PartitionFor([]byte(key), 25)
	before, after = -1, -1
	for p := range 25 {
		switch {
		case p == home:
		case model.ReadAfter("connect-offsets", p, home, 25, 25):
			after = p
		case before < 0:
			before = p
		}
	}
	return home, before, after
}
