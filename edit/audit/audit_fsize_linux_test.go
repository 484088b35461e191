//go:build linux

package audit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An append cut by the file size limit (RLIMIT_FSIZE, as a full disk) fails
// with nothing of it left in the log; the next append is whole and read.
func TestAnAppendCutByTheFileSizeLimitLeavesNoHalfLine(t *testing.T) {
	if path := os.Getenv("KOFF_TEST_FSIZE_APPEND"); path != "" {
		// The child: limited to its log's size and a few bytes more.
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		lim := uint64(fi.Size() + 64)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			t.Skip("setrlimit:", err)
		}
		err = (&Log{Path: path}).Append(testEntry("cut", "src", ResultInProgress))
		if !errors.Is(err, syscall.EFBIG) {
			t.Fatalf("want EFBIG from an append past the limit, got %v", err)
		}
		return
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log := &Log{Path: path}
	if err := log.Append(testEntry("e1", "src", ResultVerified)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAnAppendCutByTheFileSizeLimitLeavesNoHalfLine$", "-test.v")
	cmd.Env = append(os.Environ(), "KOFF_TEST_FSIZE_APPEND="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("the limited append: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "SKIP") {
		t.Skip("no RLIMIT_FSIZE here")
	}
	b, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(b), "\n") || strings.Count(string(b), "\n") != 1 {
		t.Fatalf("the cut append left part of its line:\n%q", b)
	}
	if err := log.Append(testEntry("e2", "src", ResultInProgress)); err != nil {
		t.Fatal(err)
	}
	eds, _ := log.Edits()
	if len(eds) != 2 || eds[1].ID() != "e2" || len(log.Unreadable()) != 0 {
		t.Errorf("after the cut append: %+v, unreadable %v", eds, log.Unreadable())
	}
}

// A stop or resume asks first whether its line fits: under a file size
// limit (as on a full disk) the check fails, and leaves the log as it was.
func TestCheckWritableFailsWhereTheLineWouldNotFit(t *testing.T) {
	if path := os.Getenv("KOFF_TEST_FSIZE_CHECK"); path != "" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		lim := uint64(fi.Size() + 100)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			t.Skip("setrlimit:", err)
		}
		log := &Log{Path: path}
		if err := log.CheckWritable(50); err != nil {
			t.Fatalf("a line that fits: %v", err)
		}
		if err := log.CheckWritable(2048); !errors.Is(err, syscall.EFBIG) {
			t.Fatalf("want EFBIG for a line past the limit, got %v", err)
		}
		return
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := (&Log{Path: path}).Append(testEntry("e1", "src", ResultVerified)); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckWritableFailsWhereTheLineWouldNotFit$", "-test.v")
	cmd.Env = append(os.Environ(), "KOFF_TEST_FSIZE_CHECK="+path)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("the limited check: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "SKIP") {
		t.Skip("no RLIMIT_FSIZE here")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("the check changed the log:\n%q\n%q", before, after)
	}
}
