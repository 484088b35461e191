package resume

import (
	"strings"
	"testing"
	"time"
)

// TestMirrorResumesAtTheOffsetAfterTheLastCopied: MirrorSourceTask's
// initializeConsumer (apache/kafka, connect/mirror MirrorSourceTask.java)
// seeks to the stored offset + 1, and does not seek where the stored
// offset is missing or negative (isUncommitted): so offset 9 copied is
// fine on a source log starting at 10, offset 8 is a gap of one record.
func TestMirrorResumesAtTheOffsetAfterTheLastCopied(t *testing.T) {
	at := time.Now()
	parse := func(p, o string) MirrorOffset {
		t.Helper()
		m, err := ParseMirrorOffset(p, o)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	part := `{"cluster":"src","partition":0,"topic":"orders"}`
	m := parse(part, `{"offset":9}`)
	if m.Cluster != "src" || m.Topic != "orders" || m.Num != 0 || m.Offset != 9 {
		t.Fatalf("parsed %+v", m)
	}
	log := Log{Start: 10, End: 20}
	for _, c := range []struct {
		offset string
		state  State
		lost   int64
		pos    string
	}{
		{`{"offset":9}`, Resumes, -1, "offset 9 copied, next 10"},
		{`{"offset":8}`, Gap, 1, "offset 8 copied, next 9"},
		{`{"offset":19}`, Resumes, -1, "offset 19 copied, next 20"},
		{`{"offset":20}`, Replay, -1, "offset 20 copied, next 21"},
		{`{"offset":-1}`, Resumes, -1, "none copied"},
		{`{}`, Resumes, -1, "none copied"},
	} {
		c0 := Mirror("mm2", ClassMirrorSource, nil, []MirrorPartition{{Offset: parse(part, c.offset), Log: log}}, at)
		p := c0.Partitions[0]
		if p.State != c.state || p.Lost.Records != c.lost || p.Position != c.pos || p.Partition != part {
			t.Errorf("%s: %s lost %d at %q (%s)", c.offset, p.State, p.Lost.Records, p.Position, p.Partition)
		}
		if c.state == Gap && !strings.Contains(p.Action, "source offset 9 is below the log start 10") {
			t.Errorf("gap action %q", p.Action)
		}
		if c.state == Replay && p.Replayed.Records != 10 {
			t.Errorf("replay of %d records, want the 10 held", p.Replayed.Records)
		}
	}
	// An offset beyond 2^53 is read exactly.
	if m := parse(`{"cluster":"a","partition":3,"topic":"t"}`, `{"offset":9007199254740993}`); m.Offset != 9007199254740993 || m.Num != 3 {
		t.Errorf("big offset read as %d", m.Offset)
	}
	for _, bad := range [][2]string{{`{"topic":"t"}`, `{"offset":1}`}, {`[1]`, `{"offset":1}`}, {part, `{"offset":1.5}`}, {part, `nope`}} {
		if _, err := ParseMirrorOffset(bad[0], bad[1]); err == nil {
			t.Errorf("ParseMirrorOffset(%s, %s) took it", bad[0], bad[1])
		}
	}
	if c := Mirror("mm2", ClassMirrorSource, nil, []MirrorPartition{{Offset: m, Err: "source cluster src at 10.0.0.1:9092: connection refused"}}, at); c.State() != Unknown || c.Partitions[0].Reason == "" {
		t.Errorf("unreachable source: %+v", c)
	}
}
