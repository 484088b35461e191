package interop

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// lineStart is the byte position of line n (1-based) of content: where
// FileStreamSourceTask continues when its {"position":…} offset says so.
func lineStart(content string, n int) int {
	pos := 0
	for i := 1; i < n; i++ {
		pos += strings.IndexByte(content[pos:], '\n') + 1
	}
	return pos
}

// fileConnector is a running FileStreamSource that has read all of its file.
type fileConnector struct {
	s       *Stack
	name    string
	path    string
	topic   string
	content string
}

func (s *Stack) newFileConnector(t *testing.T, name string, n int) *fileConnector {
	t.Helper()
	return s.newFileConnectorWith(t, name, n, nil)
}

// newFileConnectorWith is newFileConnector with more connector config.
func (s *Stack) newFileConnectorWith(t *testing.T, name string, n int, extra map[string]string) *fileConnector {
	t.Helper()
	f := &fileConnector{s: s, name: name, topic: name + "-out", content: lines(name, 1, n)}
	f.path = s.writeFile(t, name+".txt", f.content)
	cfg := fileSource(f.path, f.topic)
	for k, v := range extra {
		cfg[k] = v
	}
	s.createConnector(t, name, cfg)
	f.waitRead(t)
	return f
}

func (f *fileConnector) partition() string { return fmt.Sprintf(`{"filename":%q}`, f.path) }

func (f *fileConnector) position(n int) string {
	return fmt.Sprintf(`{"position":%d}`, lineStart(f.content, n))
}

// waitRead waits until the connector committed the end of its file.
func (f *fileConnector) waitRead(t *testing.T) {
	t.Helper()
	f.s.waitOffset(t, f.name, fmt.Sprintf(`%s => {"position":%d}`, f.partition(), len(f.content)))
}

// resumeAndNext resumes the stopped connector and returns the text of the
// next record the real task produces.
func (f *fileConnector) resumeAndNext(t *testing.T) string {
	t.Helper()
	from := f.s.endOffset(t, f.topic, 0)
	f.s.resume(t, f.name)
	// A starting exactly-once task fences and reads its offsets first:
	// on a loaded machine that takes a while.
	rs := f.s.readUntil(t, f.topic, 0, from, 120*time.Second, func(rs []record) bool { return len(rs) > 0 })
	return lineText(t, rs[0].Value)
}

// TestEditsAreReadByTheRealTask: every edit path, proved by where the real
// FileStreamSourceTask continues after resume, not by what koff reads back.
func TestEditsAreReadByTheRealTask(t *testing.T) {
	s := realStack(t)

	t.Run("REST", func(t *testing.T) {
		f := s.newFileConnector(t, "edit-rest", 10)
		s.stop(t, f.name)
		out := mustKoff(t, s.withREST("set", f.name, "--partition", f.partition(), "--offset", f.position(4), "--yes")...)
		if !strings.Contains(out, "Connect REST") {
			t.Errorf("with --connect-url the edit should go through Connect REST:\n%s", out)
		}
		if got := f.resumeAndNext(t); got != f.name+"-4" {
			t.Errorf("after koff set to line 4 through REST the task continued with %q", got)
		}
	})

	t.Run("Topic", func(t *testing.T) {
		f := s.newFileConnector(t, "edit-topic", 10)
		s.stop(t, f.name)
		out := mustKoff(t, s.withTopic("set", f.name, "--partition", f.partition(), "--offset", f.position(7), "--yes")...)
		if !strings.Contains(out, "offsets topic") {
			t.Errorf("without --connect-url the edit should be written to the offsets topic:\n%s", out)
		}
		if got := f.resumeAndNext(t); got != f.name+"-7" {
			t.Errorf("after koff set to line 7 in the offsets topic the task continued with %q", got)
		}
	})

	t.Run("NewPartition", func(t *testing.T) {
		f := s.newFileConnector(t, "edit-new", 3)
		other := lines("edit-new-other", 1, 6)
		path := s.writeFile(t, "edit-new-other.txt", other)
		s.stop(t, f.name)
		// A file the connector has never read: a key the worker has not
		// written yet, so koff writes it the way Jackson would, into its
		// murmur2 partition of the offsets topic. A partition the connector
		// never had is written only with --create (a typo must not be).
		mustKoff(t, s.withTopic("set", f.name, "--partition", fmt.Sprintf(`{"filename":%q}`, path),
			"--offset", fmt.Sprintf(`{"position":%d}`, lineStart(other, 5)), "--create", "--yes")...)
		cfg := fileSource(path, f.topic)
		cfg["name"] = f.name
		s.mustREST(t, 200, "PUT", "/connectors/"+f.name+"/config", cfg)
		if got := f.resumeAndNext(t); got != "edit-new-other-5" {
			t.Errorf("after reconfiguring to a file koff gave line 5's position the task started with %q", got)
		}
	})

	t.Run("Reset", func(t *testing.T) {
		f := s.newFileConnector(t, "edit-reset", 5)
		s.stop(t, f.name)
		mustKoff(t, s.withREST("reset", f.name, "--yes")...)
		if got := f.resumeAndNext(t); got != f.name+"-1" {
			t.Errorf("after koff reset the task continued with %q, want the file from the top", got)
		}
	})

	t.Run("Undo", func(t *testing.T) {
		f := s.newFileConnector(t, "edit-undo", 8)
		s.stop(t, f.name)
		mustKoff(t, s.withTopic("set", f.name, "--partition", f.partition(), "--offset", f.position(2), "--yes")...)
		mustKoff(t, s.withTopic("undo", f.name, "--yes")...)
		// The before-value is the end of the file: the task continues with
		// the first line appended, not with line 2.
		appendFile(t, f.path, f.name+"-9\n")
		if got := f.resumeAndNext(t); got != f.name+"-9" {
			t.Errorf("after koff undo the task continued with %q, want the before-value's next line %s-9", got, f.name)
		}
	})

	// The real task moved on after the edit: undo refuses, naming the value
	// the worker flushed (so Connect's GET / names the cluster koff reads,
	// or undo through REST would be refused before that); --force undoes.
	t.Run("UndoAfterTheTaskFlushed", func(t *testing.T) {
		f := s.newFileConnector(t, "edit-undo-flushed", 8)
		s.stop(t, f.name)
		mustKoff(t, s.withREST("set", f.name, "--partition", f.partition(), "--offset", f.position(2), "--yes")...)
		if got := f.resumeAndNext(t); got != f.name+"-2" {
			t.Fatalf("after koff set to line 2 the task continued with %q", got)
		}
		f.waitRead(t) // the task committed the end of its file: a value koff did not write
		s.stop(t, f.name)
		_, errs, code := koff(t, s.withREST("undo", f.name, "--yes")...)
		want := fmt.Sprintf(`now holds {"position":%d}, not {"position":%d} as the edit wrote`, len(f.content), lineStart(f.content, 2))
		if code != 1 || !strings.Contains(errs, want) || !strings.Contains(errs, "not written by koff") {
			t.Fatalf("undo after the task flushed: exit %d %q, want %q", code, errs, want)
		}
		mustKoff(t, s.withREST("undo", f.name, "--yes", "--force")...)
		appendFile(t, f.path, f.name+"-9\n")
		if got := f.resumeAndNext(t); got != f.name+"-9" {
			t.Errorf("after koff undo --force the task continued with %q, want %s-9", got, f.name)
		}
	})
}
