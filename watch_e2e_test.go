package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"koff/edit/audit"
	"koff/kafka"
	"koff/model/java"
	"koff/model/store"
)

// Ctrl+C while koff watches an edit after its read-back (the connector's
// state unknown: no --connect-url, no config topic) stops the watch: the
// edit stays written and read back, reported NOT verified (whether a task
// overwrites it is unknown), exit 1, audited unverified with why.
func TestCtrlCDuringTheWatchLeavesTheEditWrittenNotVerified(t *testing.T) {
	fake, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(25, "connect-offsets"))
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	addr := fake.ListenAddrs()[0]
	key := `["files",{"filename":"/var/log/a.log"}]`
	if err := (kafka.Config{Brokers: []string{addr}}).WriteRecords(context.Background(), []store.Record{
		{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), Key: []byte(key), Value: []byte(`{"position":100}`)},
	}); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	cmd := exec.Command(koffBin, "set", "files", "--partition", `{"filename":"/var/log/a.log"}`, "--offset", `{"position":5}`,
		"-b", addr, "--config-topic", "", "--flush-interval", "20s", "--yes")
	cmd.Env = append(cmd.Environ(), "XDG_STATE_HOME="+state)
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var errs strings.Builder
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errs.WriteString(sc.Text() + "\n")
		}
	}()
	// Written (the audit log says so) and read back within a moment: the
	// 30 s watch is on.
	auditLog := &audit.Log{Path: filepath.Join(state, "koff", "audit.jsonl")}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if eds, _ := auditLog.Edits(); len(eds) == 1 && len(eds[0].WrittenSet()) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("koff never wrote\nstdout: %s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-read // all of stderr, before Wait closes the pipe
	err = cmd.Wait()
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("koff went on for %s after Ctrl+C", took)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v\nstdout: %s\nstderr: %s", err, out.String(), errs.String())
	}
	if s := out.String(); !strings.Contains(s, "verify: watch 30s after the read-back") || !strings.Contains(s, "written and read back, NOT verified: set 1 partition of files") || !strings.Contains(s, "whether it stays is unknown") {
		t.Errorf("stdout: %s", s)
	}
	edits, err := auditLog.Edits()
	if err != nil || len(edits) != 1 {
		t.Fatalf("audit: %v %d", err, len(edits))
	}
	if ed := edits[0]; ed.Result() != audit.ResultUnverified || !strings.Contains(ed.Outcome.Message, "watch") {
		t.Errorf("audit outcome %s %q", ed.Result(), ed.Outcome.Message)
	}
}
