package interop

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The connectors of a stack that koff reads: FileStreamSource with three
// {"filename":…} partitions (reconfigured from file to file), a
// MirrorSourceConnector's three-field partitions, the test connector's
// shapes, and a FileStreamSink's group.
type connectors struct {
	file, mirror, shapes, sink string
	files                      []string
}

func (s *Stack) startConnectors(t *testing.T, prefix string) connectors {
	t.Helper()
	c := connectors{file: prefix + "-file", mirror: prefix + "-mirror", shapes: prefix + "-shapes", sink: prefix + "-sink"}

	// FileStreamSource: one file at a time, so three files are three
	// reconfigurations; each leaves its partition in the offsets topic.
	for i, n := range []int{3, 5, 8} {
		path := s.writeFile(t, fmt.Sprintf("%s-%c.txt", prefix, 'a'+i), lines(fmt.Sprintf("%s-%c", prefix, 'a'+i), 1, n))
		c.files = append(c.files, path)
		s.createConnector(t, c.file, fileSource(path, c.file+"-out"))
		s.waitOffset(t, c.file, fmt.Sprintf(`{"filename":%q} => {"position":%d}`, path, fileSize(t, path)))
	}

	// MirrorSourceConnector replicating two topics of this cluster into it,
	// under the "src." prefix.
	for _, tp := range []struct {
		name  string
		parts int
	}{{prefix + "-mi-a", 2}, {prefix + "-mi-b", 1}} {
		s.createTopic(t, tp.name, tp.parts)
		for p := range tp.parts {
			s.produce(t, tp.name, p, "m1", "m2", "m3")
		}
	}
	s.createConnector(t, c.mirror, s.mirrorSource(prefix+"-mi-.*"))
	waitFor(t, 90*time.Second, c.mirror+" offsets of 3 partitions at 2", func() (bool, string) {
		got := canonical(t, s.connectOffsets(t, c.mirror))
		ok := len(got) == 3
		for _, e := range got {
			ok = ok && strings.HasSuffix(e, `{"offset":2}`)
		}
		return ok, strings.Join(got, "\n")
	})

	// The test connector: four batches, then it has nothing more to say.
	s.createConnector(t, c.shapes, shapesConfig(c.shapes+"-out", 4))
	s.waitOffset(t, c.shapes, `{"shard":3,"primary":true,"weight":0.5} => {"seq":4,"lsn":9007199254740997,"ratio":1.0,"done":true}`)

	// FileStreamSink on a two-partition topic.
	s.createTopic(t, c.sink+"-in", 2)
	s.produce(t, c.sink+"-in", 0, `"s0-1"`, `"s0-2"`, `"s0-3"`)
	s.produce(t, c.sink+"-in", 1, `"s1-1"`)
	s.createConnector(t, c.sink, fileSink(s.FilesDir+"/"+c.sink+".txt", c.sink+"-in"))
	waitFor(t, 90*time.Second, c.sink+" committed", func() (bool, string) {
		got := canonical(t, s.connectOffsets(t, c.sink))
		return slices.Equal(got, []string{
			fmt.Sprintf(`{"kafka_partition":0,"kafka_topic":%q} => {"kafka_offset":3}`, c.sink+"-in"),
			fmt.Sprintf(`{"kafka_partition":1,"kafka_topic":%q} => {"kafka_offset":1}`, c.sink+"-in"),
		}), strings.Join(got, "\n")
	})
	return c
}

func shapesConfig(topic string, maxSeq int) map[string]string {
	return map[string]string{
		"connector.class": "koff.interop.ShapesSourceConnector",
		"topic":           topic, "tasks.max": "1", "poll.ms": "500", "max.seq": strconv.Itoa(maxSeq),
	}
}

func fileSink(path, topics string) map[string]string {
	return map[string]string{
		"connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
		"file":            path, "topics": topics, "tasks.max": "1",
		"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false",
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// waitOffset waits until Connect's GET offsets of name has entry (in
// canonical form).
func (s *Stack) waitOffset(t *testing.T, name, entry string) {
	t.Helper()
	waitFor(t, 90*time.Second, name+" offset "+entry, func() (bool, string) {
		got := canonical(t, s.connectOffsets(t, name))
		return slices.Contains(got, canonicalEntry(t, entry)), strings.Join(got, "\n")
	})
}

// canonicalEntry re-renders a "partition => offset" line the way canonical
// does (sorted fields).
func canonicalEntry(t *testing.T, e string) string {
	t.Helper()
	p, o, _ := strings.Cut(e, " => ")
	var b offsetsBody
	decode(t, []byte(`{"offsets":[{"partition":`+p+`,"offset":`+o+`}]}`), &b)
	return canonical(t, b)[0]
}

// TestGetEqualsConnect: for every connector, source and sink, koff get NAME
// -o json read from the offsets topic and the group alone (no
// --connect-url) is the worker's GET /connectors/NAME/offsets value for
// value, and so is koff get with REST.
//
// The one intended difference is the test connector's: Connect's GET
// (Worker.sourceConnectorOffsets) lists partitions parsed back into HashMaps
// (OffsetUtils.processPartitionKey, JsonConverter) and looks each up by the
// bytes of its HashMap serialisation (OffsetStorageReaderImpl.offsets). So it
// leaves out the null partition (processPartitionKey skips a non-map second
// element), and for the "ordered" partition, whose task writes its fields in
// another order, it shows an offset of null: no key with those bytes exists.
// koff shows both with the value the task reads.
func TestGetEqualsConnect(t *testing.T) {
	s := realStack(t)
	c := s.startConnectors(t, "get")

	for _, name := range []string{c.file, c.mirror, c.sink} {
		want := canonical(t, s.connectOffsets(t, name))
		for _, how := range [][]string{s.withTopic("get", name, "-o", "json"), s.withREST("get", name, "-o", "json")} {
			var got offsetsBody
			decode(t, []byte(mustKoff(t, how...)), &got)
			if g := canonical(t, got); !slices.Equal(g, want) {
				t.Errorf("koff %s:\n%s\nConnect GET offsets:\n%s", strings.Join(how, " "), strings.Join(g, "\n"), strings.Join(want, "\n"))
			}
		}
	}
	if n := len(canonical(t, s.connectOffsets(t, c.file))); n != 3 {
		t.Errorf("%s: %d partitions, want one per file (3)", c.file, n)
	}

	// The test connector: Connect's view and koff's, with the documented
	// difference.
	connect := canonical(t, s.connectOffsets(t, c.shapes))
	wantConnect := []string{
		canonicalEntry(t, `{"account":7,"zone":"eu-west"} => null`),
		canonicalEntry(t, `{"shard":3,"primary":true,"weight":0.5} => {"seq":4,"lsn":9007199254740997,"ratio":1.0,"done":true}`),
	}
	if !slices.Equal(connect, wantConnect) {
		t.Errorf("Connect GET offsets of %s:\n%s\nwant:\n%s", c.shapes, strings.Join(connect, "\n"), strings.Join(wantConnect, "\n"))
	}
	out := mustKoff(t, s.withTopic("get", c.shapes, "-o", "json")...)
	var got offsetsBody
	decode(t, []byte(out), &got)
	last := `{"seq":4,"lsn":9007199254740997,"ratio":1.0,"done":true}`
	wantKoff := []string{
		canonicalEntry(t, `{"account":7,"zone":"eu-west"} => `+last),
		canonicalEntry(t, `{"shard":3,"primary":true,"weight":0.5} => `+last),
	}
	if g := canonical(t, got); !slices.Equal(g, wantKoff) {
		t.Errorf("koff get %s -o json:\n%s\nwant:\n%s", c.shapes, strings.Join(g, "\n"), strings.Join(wantKoff, "\n"))
	}
	// Numbers as the worker's Jackson wrote them: 2^53+5 exact, 1.0 a double.
	if !strings.Contains(out, last) {
		t.Errorf("koff get %s -o json does not keep the worker's number forms %s:\n%s", c.shapes, last, out)
	}
	t.Logf("koff get %s: %s", c.shapes, mustKoff(t, s.withTopic("get", c.shapes)...))
	t.Logf("koff get %s -o json: %s", c.shapes, out)
}
