package planner

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// Connector classes whose offsets koff can explain: what a task of the
// class resumes from, given the offset a plan writes.
const (
	classMirrorSource     = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
	classMirrorCheckpoint = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"
	classMirrorHeartbeat  = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"
	classPostgres         = "io.debezium.connector.postgresql.PostgresConnector"
	classFileStream       = "org.apache.kafka.connect.file.FileStreamSourceConnector"
	classJDBC             = "io.confluent.connect.jdbc.JdbcSourceConnector"
)

// classNotes say, for each changed partition of a connector of a known
// class, what its task resumes from after the edit: the same offset
// means different things to different connectors (MirrorMaker's is the
// last record copied, FileStream's the next byte to read).
func classNotes(p *plan.Plan) []string {
	class := strings.TrimSpace(p.Config["connector.class"])
	var out []string
	switch class {
	case classMirrorCheckpoint, classMirrorHeartbeat:
		// MirrorCheckpointConnector.alterOffsets: "We don't actually use
		// these offsets in the task class"; the heartbeat connector alike.
		return []string{fmt.Sprintf("%s: its tasks never read these offsets (%s only checks their shape): the edit changes nothing they do.", shortClass(class), shortClass(class))}
	case classMirrorSource, classPostgres, classFileStream, classJDBC:
	default:
		return nil
	}
	if p.Kind == plan.KindRekey {
		// The old keys' tombstones are no reset: their offsets live on
		// under the new keys, whose notes say what the task resumes from.
		kept := make([]plan.Change, 0, len(p.Changes))
		for _, ch := range p.Changes {
			if ch.After != nil {
				kept = append(kept, ch)
			}
		}
		q := *p
		q.Changes, q.Kind = kept, plan.KindImport
		return classNotes(&q)
	}
	resets := 0
	for _, ch := range p.Changes {
		if ch.After == nil {
			resets++
		}
	}
	if resets == len(p.Changes) && resets > maxClassNotes {
		// One sentence for a reset of many partitions, not one each.
		n := classNote(class, p.Config, plan.Change{Partition: java.Object{}, PartitionJSON: fmt.Sprintf("%d partitions", resets)})
		return []string{strings.Replace(n, "the partition again", "each partition again", 1)}
	}
	for _, ch := range p.Changes {
		if n := classNote(class, p.Config, ch); n != "" {
			out = append(out, n)
		}
	}
	if len(out) > maxClassNotes {
		more := len(out) - maxClassNotes
		out = append(out[:maxClassNotes], fmt.Sprintf("%s: and so for %d more partitions.", strings.SplitN(out[0], ":", 2)[0], more))
	}
	return out
}

// maxClassNotes is how many partitions' notes a plan lists one by one.
const maxClassNotes = 3

func classNote(class string, cfg map[string]string, ch plan.Change) string {
	part := ch.PartitionJSON
	after, _ := model.ParseOffset(ch.After)
	before, _ := model.ParseOffset(ch.Before)
	switch class {
	case classMirrorSource:
		// MirrorSourceTask.start seeks to the stored offset + 1; with none
		// it does not seek, and its consumer's auto.offset.reset (earliest
		// unless configured) decides.
		tp := part
		if t, ok := ch.Partition.Get("topic"); ok {
			if n, ok := ch.Partition.Get("partition"); ok {
				tp = fmt.Sprintf("%v-%v", t, n)
			}
		}
		if ch.After == nil {
			if strings.EqualFold(strings.TrimSpace(cfg["consumer.auto.offset.reset"]), "latest") {
				return fmt.Sprintf("MirrorMaker: no offset for %s: the task copies only records produced from now on (consumer.auto.offset.reset=latest).", tp)
			}
			return fmt.Sprintf("MirrorMaker: no offset for %s: the task copies the partition again from its log start.", tp)
		}
		if n, ok := intField(after, "offset"); ok {
			return fmt.Sprintf("MirrorMaker: {\"offset\":%s} is the last record copied: the task resumes copying %s at %s.", n, tp, new(big.Int).Add(n, big.NewInt(1)))
		}
	case classPostgres:
		if ch.After == nil {
			mode := strings.TrimSpace(cfg["snapshot.mode"])
			if mode == "" {
				mode = "initial"
			}
			switch mode {
			case "no_data", "never":
				return fmt.Sprintf("Debezium PostgreSQL: no offset for %s: no snapshot (snapshot.mode=%s); it streams from where its replication slot stands (its confirmed_flush_lsn).", part, mode)
			}
			return fmt.Sprintf("Debezium PostgreSQL: no offset for %s: the connector takes a new snapshot (snapshot.mode=%s), then streams.", part, mode)
		}
		// lsn is where streaming resumes; lsn_proc and lsn_commit (newer
		// Debezium) say the same of the last event and commit processed.
		to, ok1 := intField(after, "lsn")
		from, ok2 := intField(before, "lsn")
		for _, f := range []string{"lsn", "lsn_proc", "lsn_commit"} {
			t, okT := intField(after, f)
			b, okB := intField(before, f)
			if okT && okB && t.Cmp(b) < 0 {
				to, from, ok1, ok2 = t, b, true, true
				break
			}
		}
		switch {
		case ok1 && ok2 && to.Cmp(from) < 0:
			// Seen on the real 3.6.1 task: an lsn the slot has released
			// fails its start ("no longer available on the server").
			return fmt.Sprintf("Debezium PostgreSQL: lsn moved back from %s to %s: only what the replication slot still holds is streamed again; the slot starts at the later of %s and its confirmed_flush_lsn, and if it no longer holds %s the task fails on start (\"no longer available on the server\") unless snapshot.mode=when_needed, which takes a new snapshot.", from, to, to, to)
		case ok1:
			return fmt.Sprintf("Debezium PostgreSQL: streaming resumes after lsn %s (from the replication slot, which starts no earlier than its confirmed_flush_lsn).", to)
		}
	case classFileStream:
		if ch.After == nil {
			return fmt.Sprintf("FileStream: no offset for %s: the task reads the file from its first byte.", part)
		}
		if n, ok := intField(after, "position"); ok {
			return fmt.Sprintf("FileStream: {\"position\":%s} is a byte offset: the task resumes reading %s at byte %s.", n, part, n)
		}
	case classJDBC:
		if ch.After == nil {
			return fmt.Sprintf("JDBC: no offset for %s: the task reads the table from its start (or timestamp.initial).", part)
		}
		var after2 []string
		for _, f := range []string{"incrementing", "timestamp"} {
			if n, ok := intField(after, f); ok {
				after2 = append(after2, f+" "+n.String())
			}
		}
		if len(after2) > 0 {
			return fmt.Sprintf("JDBC: the task resumes with the rows after %s of %s.", strings.Join(after2, ", "), part)
		}
	}
	return ""
}

// intField is an integer field of an offset, exact at any size.
func intField(o java.Object, name string) (*big.Int, bool) {
	v, ok := o.Get(name)
	if !ok {
		return nil, false
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	return new(big.Int).SetString(string(n), 10)
}

// shortClass is a connector class without its package.
func shortClass(class string) string { return class[strings.LastIndexByte(class, '.')+1:] }
