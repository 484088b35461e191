package resume

import (
	"strings"
	"testing"
	"time"
)

// TestFileStreamPositionAgainstTheFile: FileStreamSourceTask.poll
// (apache/kafka, connect/file FileStreamSourceTask.java) skips the stored
// position with InputStream.skip until all of it is skipped; on a shorter
// file the JDK's skip stops at the end (Java 17: skip(10) of a 4-byte file
// is 4, then 0), so the task reads nothing until the file grows past the
// position and never reads the bytes before it: a gap of what the file
// holds now. A file missing where koff runs, or that koff cannot read, is
// unknown with the reason.
func TestFileStreamPositionAgainstTheFile(t *testing.T) {
	at := time.Now()
	off, err := ParseFileOffset(`{"filename":"/var/log/app.log"}`, `{"position":2048}`)
	if err != nil || off.Position != 2048 || off.Filename != "/var/log/app.log" {
		t.Fatalf("parse: %+v %v", off, err)
	}
	file := func(size, lines int64) File {
		return File{Path: "/var/log/app.log", Host: "worker1", Exists: true, Size: size, Lines: lines}
	}
	for _, c := range []struct {
		name  string
		file  File
		state State
		want  string
	}{
		{"bigger", file(4096, 80), Resumes, "reads on from byte 2048 (2048 bytes to read)"},
		{"exactly", file(2048, 40), Resumes, "(0 bytes to read)"},
		{"truncated", file(100, 3), Gap, "the 100 bytes it holds now, 3 lines, and the next 1948 bytes written are never read"},
		{"missing", File{Path: "/var/log/app.log", Host: "jump1"}, Unknown, "/var/log/app.log does not exist on jump1"},
		{"unreadable", File{Path: "/var/log/app.log", Host: "jump1", Err: "permission denied"}, Unknown, "cannot look at /var/log/app.log on jump1: permission denied"},
	} {
		got := FileStream("fs", ClassFileStreamSource, []FilePartition{{Offset: off, File: c.file}}, at)
		p := got.Partitions[0]
		text := p.Action + p.Reason
		if p.State != c.state || !strings.Contains(text, c.want) || p.Position != "byte 2048" {
			t.Errorf("%s: %s %q at %q", c.name, p.State, text, p.Position)
		}
		if c.state == Gap && (p.Lost.Bytes != 100 || p.Lost.Records != 3 || p.ResumesAt != "byte 2048, once the file has grown by 1948 bytes") {
			t.Errorf("gap: %+v", p)
		}
	}
	if _, err := ParseFileOffset(`{"filename":"/a"}`, `{"position":"12"}`); err == nil || !strings.Contains(err.Error(), "incorrect type") {
		t.Errorf("a string position: %v", err)
	}
	none, _ := ParseFileOffset(`{"filename":"/a"}`, `{}`)
	if p := FileStream("fs", "", []FilePartition{{Offset: none}}, at).Partitions[0]; p.State != Resumes || p.Position != "none" {
		t.Errorf("no position: %+v", p)
	}
}

// TestUncheckedNamesTheClass: a class koff cannot check is unknown, named.
func TestUncheckedNamesTheClass(t *testing.T) {
	c := Unchecked("jdbc", "io.confluent.connect.jdbc.JdbcSourceConnector", "source", time.Now())
	if c.State() != Unknown || !strings.Contains(c.Reason, "koff cannot check io.confluent.connect.jdbc.JdbcSourceConnector's positions") {
		t.Errorf("%s %q", c.State(), c.Reason)
	}
	if c := Unchecked("x", "", "source", time.Now()); !strings.Contains(c.Reason, "does not know the connector's class") {
		t.Errorf("%q", c.Reason)
	}
	if c := MirrorInternal("hb", ClassMirrorHeartbeat, time.Now()); c.State() != Resumes {
		t.Errorf("heartbeat: %s", c.State())
	}
}
