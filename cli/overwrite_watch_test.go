package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/edit/audit"
	"koff/model/java"
)

// The edits of this package's tests mostly have no REST: each would be
// watched after its read-back for up to apply.WatchCap. Tests of other
// things look once and go on, as they did before the watch (their timing
// against the demo's workers is theirs); the tests of the watch itself
// set it back.
func init() { editWatchLimit = time.Nanosecond }

// fullWatch lets a test watch for as long as koff would.
func fullWatch(t *testing.T) {
	old := editWatchLimit
	editWatchLimit = 0
	t.Cleanup(func() { editWatchLimit = old })
}

// Without --connect-url and without the config topic koff cannot know the
// connector is stopped: the plan says it will watch the edit for 1.5× the
// flush interval after reading it back, and
// a worker's commit in that time makes it overwritten (exit 1, audited
// so), naming the worker's record, never verified.
func TestASetWithoutRESTIsWatchedAndATaskCommitOverItIsAnOverwrite(t *testing.T) {
	fullWatch(t)
	addr := offsetsBroker(t)
	key := `["files",{"filename":"/var/log/a.log"}]`
	produceConnect(t, addr, [2]string{key, `{"position":100}`})
	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	part := java.PartitionFor([]byte(key), 25)

	// The worker: once koff's record is in the log and read back, the
	// task's next flush commits its own position.
	done := make(chan struct{})
	go func() {
		defer close(done)
		c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 5 * time.Second}
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			res, err := c.ListOffsets(context.Background(), &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{"connect-offsets": {kafkago.LastOffsetOf(part)}}})
			if err == nil && len(res.Topics["connect-offsets"]) == 1 && res.Topics["connect-offsets"][0].LastOffset >= 2 {
				time.Sleep(600 * time.Millisecond)
				produceConnect(t, addr, [2]string{key, `{"position":130}`})
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	out, errs, code := koff(t, "set", "files", "--partition", `{"filename":"/var/log/a.log"}`, "--offset", `{"position":5}`,
		"-b", addr, "--config-topic", "", "--flush-interval", "2s", "--audit-log", auditLog, "--yes")
	<-done
	if code != ExitFailed {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitFailed, out, errs)
	}
	for _, want := range []string{
		"  verify: watch 3s after the read-back for a task's commit over the edit: state unknown (no --connect-url, no config topic); a running task commits within its flush interval, 2s (--flush-interval)",
		`written, then overwritten: set 1 partition of files via offsets topic, but {"filename":"/var/log/a.log"} holds {"position":130}, written by a Connect worker: the connector's task (a record without koff's header, connect-offsets/`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// Not a terminal: the plan's verify line said it; stderr is the error alone.
	if errs != "koff: files: written, then overwritten by another writer\n" {
		t.Errorf("stderr: %q", errs)
	}
	edits, err := (&audit.Log{Path: auditLog}).Edits()
	if err != nil || len(edits) == 0 {
		t.Fatal(err)
	}
	if last := edits[len(edits)-1]; last.Result() != audit.ResultOverwritten {
		t.Errorf("audit outcome %s", last.Result())
	}
}

// Nothing commits over it: verified, but only once the watch is over.
func TestASetWithoutRESTIsVerifiedAfterTheWatch(t *testing.T) {
	fullWatch(t)
	addr := offsetsBroker(t)
	key := `["files",{"filename":"/var/log/a.log"}]`
	produceConnect(t, addr, [2]string{key, `{"position":100}`})
	start := time.Now()
	out, errs, code := koff(t, "set", "files", "--partition", `{"filename":"/var/log/a.log"}`, "--offset", `{"position":5}`,
		"-b", addr, "--config-topic", "", "--flush-interval", "1s", "--audit-log", filepath.Join(t.TempDir(), "audit.jsonl"), "--yes")
	if code != 0 || errs != "" || !strings.Contains(out, "verify: watch 1.5s after the read-back") || !strings.Contains(out, "written and read back, NOT verified for the worker") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if took := time.Since(start); took < 1500*time.Millisecond {
		t.Errorf("done after %s, before the watch ended", took)
	}
}
