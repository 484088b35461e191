package interop

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCreateWithOffsetsReadsFromThere: koff create -f … --offsets makes the
// real worker's FileStreamSource start where the offsets say: created
// STOPPED (KIP-980), its offset written through PATCH and read back, then
// resumed; its first records are lines 7 to 10 of the file, exactly four,
// none before.
func TestCreateWithOffsetsReadsFromThere(t *testing.T) {
	s := realStack(t)
	const name = "life-create"
	content := lines(name, 1, 10)
	path := s.writeFile(t, name+".txt", content)
	topic := name + "-out"
	s.createTopic(t, topic, 1)
	cfg := fileSource(path, topic)
	dir := t.TempDir()
	configFile := filepath.Join(dir, "config.json")
	body, _ := json.Marshal(map[string]any{"name": name, "config": cfg})
	offsetsFile := filepath.Join(dir, "offsets.json")
	offsets := fmt.Sprintf(`{"offsets":[{"partition":{"filename":%q},"offset":{"position":%d}}]}`, path, lineStart(content, 7))
	if err := os.WriteFile(configFile, body, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(offsetsFile, []byte(offsets), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.rest(t, "DELETE", "/connectors/"+name, nil) })
	out := mustKoff(t, s.withREST("create", "-f", configFile, "--offsets", offsetsFile, "--yes")...)
	for _, want := range []string{"1. create " + name + " STOPPED", "PATCH /connectors/" + name + "/offsets", "3. resume " + name, "all 3 steps done"} {
		if !strings.Contains(out, want) {
			t.Errorf("koff create lacks %q:\n%s", want, out)
		}
	}
	s.waitState(t, name, "RUNNING")
	s.readUntil(t, topic, 0, 0, 120*time.Second, func(rs []record) bool { return len(rs) >= 4 })
	time.Sleep(3 * time.Second) // anything more would come now
	rs := s.readUntil(t, topic, 0, 0, 10*time.Second, func(rs []record) bool { return len(rs) >= 4 })
	var got []string
	for _, r := range rs {
		got = append(got, lineText(t, r.Value))
	}
	if strings.Join(got, ",") != name+"-7,"+name+"-8,"+name+"-9,"+name+"-10" {
		t.Fatalf("the created connector produced %d records %v, want lines 7 to 10 only", len(got), got)
	}
}

// TestRenameOnTheRealWorker: koff rename stops the connector, creates the
// new name STOPPED with its config and its offsets byte for byte, tombstones
// the old name's offsets and deletes it, and resumes the new one, which
// continues with the line after the last one read: none lost, none again.
// A connector created later under the old name starts from the start.
func TestRenameOnTheRealWorker(t *testing.T) {
	s := realStack(t)
	f := s.newFileConnector(t, "life-old", 5)
	const renamed = "life-new"
	t.Cleanup(func() { s.rest(t, "DELETE", "/connectors/"+renamed, nil) })
	before := s.connectOffsets(t, f.name)
	out := mustKoff(t, s.withREST("rename", f.name, renamed, "--yes")...)
	if !strings.Contains(out, "rename of life-old to life-new: all 6 steps done") {
		t.Fatalf("koff rename:\n%s", out)
	}
	s.waitState(t, renamed, "RUNNING")
	if code, _ := s.rest(t, "GET", "/connectors/"+f.name+"/status", nil); code != http.StatusNotFound {
		t.Errorf("%s still in Connect: %d", f.name, code)
	}
	after := s.connectOffsets(t, renamed)
	if a, b := canonical(t, after), canonical(t, before); strings.Join(a, "\n") != strings.Join(b, "\n") || len(a) != 1 {
		t.Errorf("offsets of %s %v, %s had %v", renamed, a, f.name, b)
	}
	var cfg map[string]string
	decode(t, s.mustREST(t, http.StatusOK, "GET", "/connectors/"+renamed+"/config", nil), &cfg)
	if cfg["file"] != f.path || cfg["topic"] != f.topic || cfg["name"] != renamed {
		t.Errorf("%s's config: %v", renamed, cfg)
	}
	// It continues with line 6, the first after what life-old read.
	from := s.endOffset(t, f.topic, 0)
	if err := appendLines(f.path, lines(f.name, 6, 6)); err != nil {
		t.Fatal(err)
	}
	rs := s.readUntil(t, f.topic, 0, from, 120*time.Second, func(rs []record) bool { return len(rs) > 0 })
	if got := lineText(t, rs[0].Value); got != f.name+"-6" || len(rs) != 1 {
		t.Errorf("after the rename the task produced %d records, first %q; want only %s-6", len(rs), got, f.name)
	}
	// The old name's offsets are tombstoned: created again, it reads from
	// the first line.
	s.createConnector(t, f.name, fileSource(f.path, f.name+"-again"))
	again := s.readUntil(t, f.name+"-again", 0, 0, 120*time.Second, func(rs []record) bool { return len(rs) > 0 })
	if got := lineText(t, again[0].Value); got != f.name+"-1" {
		t.Errorf("%s created again started with %q, want line 1", f.name, got)
	}
}

func appendLines(path, text string) error {
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer fh.Close()
	_, err = fh.WriteString(text)
	return err
}
