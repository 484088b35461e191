package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/kafka"
)

// A line koff cannot read is said on stderr by koff audit and koff undo,
// with the file and line number, and the edits around it are still listed
// and undone.
func TestAuditAndUndoReportLinesTheyCannotRead(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"file":"a"}]`, `{"pos":1}`})
	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	if _, errs, code := koff(t, "set", "src", "-b", addr, "--partition", `{"file":"a"}`, "--offset", `{"pos":2}`, "--yes", "--audit-log", auditLog); code != 0 {
		t.Fatal(errs)
	}
	f, err := os.OpenFile(auditLog, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// After the set's three lines (in-progress, written, verified): lines 4 to 6.
	f.WriteString("garbage\n{}\n{\"id\":\"cut\",\"time\":\"2026-") // a write cut short
	f.Close()
	if _, errs, code := koff(t, "set", "src", "-b", addr, "--partition", `{"file":"a"}`, "--offset", `{"pos":3}`, "--yes", "--audit-log", auditLog); code != 0 {
		t.Fatal(errs)
	}
	eds := auditEdits(t, auditLog)
	if len(eds) != 2 {
		t.Fatalf("the set after the cut line is lost: %d edits", len(eds))
	}
	for _, line := range []string{"line 4: not an audit line", "line 5: not an edit's line", "line 6: cut short"} {
		want := "koff: warning: audit log " + auditLog + " " + line
		out, errs, code := koff(t, "audit", "-b", addr, "--audit-log", auditLog)
		if code != 0 || !strings.Contains(errs, want) || strings.Count(out, "set") != 2 {
			t.Errorf("koff audit: exit %d, want %q on stderr: %q\n%s", code, want, errs, out)
		}
		out, errs, code = koff(t, "undo", "src", "-b", addr, "--audit-log", auditLog, "--dry-run")
		if code != 0 || !strings.Contains(errs, want) || !strings.Contains(out, "(edit "+eds[1].ID()+")") {
			t.Errorf("koff undo: exit %d, want %q on stderr: %q\n%s", code, want, errs, out)
		}
	}
}

// koff audit works while the broker is down: after a bounded wait it lists
// the local log, every cluster's edits, saying on stderr why.
func TestAuditListsTheLocalLogWhileTheBrokerIsDown(t *testing.T) {
	b := broker(t)
	if err := b.CreateTopic("connect-offsets", 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	addr := b.Bootstrap()
	produceConnect(t, addr, [2]string{`["src",{"file":"a"}]`, `{"pos":1}`})
	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	if _, errs, code := koff(t, "set", "src", "-b", addr, "--partition", `{"file":"a"}`, "--offset", `{"pos":2}`, "--yes", "--audit-log", auditLog); code != 0 {
		t.Fatal(errs)
	}
	id := auditEdits(t, auditLog)[0].ID()
	b.Close()

	// A black hole: connections accepted, never answered.
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close()
	go func() {
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	defer func(w time.Duration) { auditClusterWait = w }(auditClusterWait)
	auditClusterWait = 2 * time.Second
	for _, down := range []string{addr, hole.Addr().String()} {
		start := time.Now()
		out, errs, code := koff(t, "audit", "-b", down, "--audit-log", auditLog)
		took := time.Since(start)
		if code != 0 || !strings.Contains(out, id) || !strings.Contains(errs, "cannot tell which cluster this is") || !strings.Contains(errs, "listing the edits of every cluster") {
			t.Errorf("koff audit -b %s with the broker down: exit %d %q\n%s", down, code, errs, out)
		}
		if took > 10*time.Second {
			t.Errorf("koff audit waited %s for a broker that is down", took)
		}
	}
}

// koff stop and resume, like every edit, are refused before they act when
// their audit line could not be written; done, their lines name the
// cluster (the brokers', else the one Connect's GET / names).
func TestStopAndResumeAreAuditedOrRefused(t *testing.T) {
	c := demoCluster(t)
	dir := t.TempDir() // a directory is no file to append to
	rest := []string{"--connect-url", c.ConnectURL()}
	for _, verb := range []string{"stop", "resume"} {
		if verb == "resume" {
			if err := c.StopConnector("jdbc-shop"); err != nil {
				t.Fatal(err)
			}
		}
		before := c.ConnectorState("jdbc-shop")
		out, errs, code := koff(t, append([]string{verb, "jdbc-shop", "--audit-log", dir}, rest...)...)
		if code != ExitFailed || !strings.Contains(errs, "audit log "+dir) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
			t.Errorf("%s with an audit log that cannot be written: exit %d %q %q", verb, code, errs, out)
		}
		time.Sleep(300 * time.Millisecond)
		if after := c.ConnectorState("jdbc-shop"); after != before {
			t.Errorf("%s went ahead unaudited: %s → %s", verb, before, after)
		}
	}

	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	for _, args := range [][]string{
		{"resume", "jdbc-shop"},
		{"stop", "jdbc-shop", "-b", c.Bootstrap()},
		{"resume", "jdbc-shop", "-b", c.Bootstrap()},
		{"stop", "jdbc-shop"},
	} {
		if _, errs, code := koff(t, append(append(args, "--audit-log", auditLog), rest...)...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	cluster, err := kafka.Config{Brokers: []string{c.Bootstrap()}}.ClusterID(t.Context())
	if err != nil || !strings.HasPrefix(cluster, "koff-demo-") {
		t.Fatalf("the demo's cluster id: %q %v", cluster, err)
	}
	eds := auditEdits(t, auditLog)
	if len(eds) != 4 {
		t.Fatalf("want 4 lines, got %d", len(eds))
	}
	for _, ed := range eds {
		if ed.Start.Cluster != cluster || ed.Result() != audit.ResultDone {
			t.Errorf("the %s line names cluster %q (want %q), result %s", ed.Start.Kind, ed.Start.Cluster, cluster, ed.Result())
		}
	}
}

// Each demo broker is its own cluster: an edit interrupted on one is
// announced there, never on a demo started after it.
func TestAnInterruptedEditOfOneDemoIsNotAnnouncedOnAnother(t *testing.T) {
	var addrs, ids []string
	for range 2 {
		addr := offsetsBroker(t)
		produceConnect(t, addr, [2]string{`["src",{"file":"a"}]`, `{"pos":1}`})
		id, err := kafka.Config{Brokers: []string{addr}}.ClusterID(t.Context())
		if err != nil || !strings.HasPrefix(id, "koff-demo-") {
			t.Fatalf("a demo broker's cluster id: %q %v", id, err)
		}
		addrs, ids = append(addrs, addr), append(ids, id)
	}
	if ids[0] == ids[1] {
		t.Fatalf("two demo brokers share the cluster id %s", ids[0])
	}
	auditLog := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := (&audit.Log{Path: auditLog}).Append(audit.Entry{ID: "20261201T100000.000Z-0000cafe", Time: time.Now().UTC(), User: "someone",
		Host: "another-host", PID: 1, Connector: "src", Kind: plan.KindImport, Path: plan.PathTopic, Result: audit.ResultInProgress, Cluster: ids[0],
		Positions: map[string]int64{"connect-offsets/3": 0}}); err != nil {
		t.Fatal(err)
	}
	_, errs, _ := koff(t, "status", "-b", addrs[0], "--audit-log", auditLog)
	if !strings.Contains(errs, "INTERRUPTED EDIT: import of src") || !strings.Contains(errs, "koff undo src --edit 20261201T100000.000Z-0000cafe") {
		t.Errorf("the demo it was interrupted on does not announce it: %q", errs)
	}
	if _, errs, _ := koff(t, "status", "-b", addrs[1], "--audit-log", auditLog); strings.Contains(errs, "INTERRUPTED") {
		t.Errorf("another demo announces it: %q", errs)
	}
}
