package interop

import (
	"fmt"
	"strings"
	"testing"
)

// TestCheckMirrorMakerFromASecondCluster: MirrorMaker 2 copies a topic
// from a second real broker (its own KRaft cluster, the source) into the
// stack's broker (the target), v0..v4 (stored offset 4, the last copied).
// Stopped, v5..v14 arrive on the source and kafka-delete-records moves the
// source topic's log start to 9 there. koff check, reaching the source
// cluster by the connector's source.cluster.bootstrap.servers, says gap 4,
// resuming at source offset 9, exit 6; resumed, MirrorMaker 2 copies
// v9..v14 to the target topic and never v5..v8, as koff said.
func TestCheckMirrorMakerFromASecondCluster(t *testing.T) {
	s, sc := realSourceCluster(t)
	source := *s // the helpers, aimed at the source cluster
	source.Bootstrap = sc.Bootstrap
	const name, topic = "check-mm-2nd", "check-mm-2nd-a"
	target := "src." + topic
	source.createTopic(t, topic, 1)
	values := func(from, to int) []string {
		var vs []string
		for i := from; i <= to; i++ {
			vs = append(vs, fmt.Sprintf("v%d", i))
		}
		return vs
	}
	once := func(vs ...[]string) map[string]int {
		n := map[string]int{}
		for _, v := range vs {
			for _, x := range v {
				n[x] = 1
			}
		}
		return n
	}
	source.produce(t, topic, 0, values(0, 4)...)
	config := s.mirrorSource(topic)
	config["source.cluster.bootstrap.servers"] = sc.Bootstrap
	s.createConnector(t, name, config)
	s.waitCopies(t, target, once(values(0, 4)))
	part := fmt.Sprintf(`{"cluster":"src","partition":0,"topic":%q}`, topic)
	s.waitOffset(t, name, part+` => {"offset":4}`)
	if c := s.koffCheck(t, name, 0); c.Connectors[0].State != "resumes" {
		t.Fatalf("MirrorMaker at its source's log end: %+v", c)
	}

	s.stop(t, name)
	source.produce(t, topic, 0, values(5, 14)...)
	source.deleteRecords(t, topic, 9)
	c := s.koffCheck(t, name, 6)
	p := c.Connectors[0].Partitions[0]
	if p.Partition != part || p.State != "gap" || p.Lost == nil || *p.Lost.Records != 4 || p.ResumesAt != "offset 9" ||
		!strings.Contains(p.Action, "source offset 5 is below the log start 9") {
		t.Fatalf("koff check after DeleteRecords on the source cluster: %+v", p)
	}
	out, _, code := koff(t, s.withTopic("check", name)...)
	if code != 6 || !strings.Contains(out, "gap 1") || !strings.Contains(out, "4 records") {
		t.Errorf("koff check's table: exit %d\n%s", code, out)
	}
	t.Logf("koff check: %s", p.Action)

	s.resume(t, name)
	s.waitCopies(t, target, once(values(0, 4), values(9, 14)))
	if n := len(s.copies(t, target)); n != 11 {
		t.Errorf("the target topic holds %d distinct records, want the 5 copied before and the 6 from the new log start", n)
	}
}
