package model

import (
	"bytes"
	"sort"

	"koff/model/java"
)

// OffsetsBody renders source partitions as the body of Connect's
// GET /connectors/NAME/offsets: {"offsets":[{"partition":{…},"offset":{…}}]}.
//
// Each source partition appears once, with the offset a restarted task
// reads: the value of its live copy (PartitionRow.Live), in compact JSON
// with the stored digits, so that export and import round-trip what the
// task reads. Stray copies are left out, and so are partitions for which
// the task gets no offset (deleted, a null or unreadable value, or no key
// with the task's bytes): Connect's own GET would list some of those with
// "offset":null, which import would turn into a reset of every copy.
// Null partition maps are left out, as Connect leaves them out. When rows
// of several offsets topics hold the same partition, the first topic's
// copy wins: pass the topic the connector's tasks read first.
func OffsetsBody(rows []PartitionRow) []byte {
	type pick struct {
		row   PartitionRow
		canon string
	}
	seen := map[string]bool{}
	var picks []pick
	for _, r := range rows {
		if !r.Live || r.Offset == "" {
			continue
		}
		k, err := ParseKey([]byte(r.ID.Key))
		if err != nil || k.Partition == nil {
			continue
		}
		canon := java.JavaIdentity(k.Partition)
		if seen[canon] {
			continue
		}
		seen[canon] = true
		picks = append(picks, pick{r, canon})
	}
	sort.SliceStable(picks, func(i, j int) bool {
		if picks[i].row.Partition != picks[j].row.Partition {
			return picks[i].row.Partition < picks[j].row.Partition
		}
		return picks[i].canon < picks[j].canon
	})
	var b bytes.Buffer
	b.WriteString(`{"offsets":[`)
	for i, p := range picks {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"partition":`)
		b.WriteString(p.row.Partition)
		b.WriteString(`,"offset":`)
		b.WriteString(p.row.Offset)
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// SinkOffsetsBody renders a sink's committed offsets as Connect's GET
// /connectors/NAME/offsets body for sinks:
// {"offsets":[{"partition":{"kafka_partition":0,"kafka_topic":"t"},"offset":{"kafka_offset":5}}]}.
func SinkOffsetsBody(rows []SinkPartitionRow) []byte {
	var b bytes.Buffer
	b.WriteString(`{"offsets":[`)
	n := 0
	for _, r := range rows {
		if r.Committed < 0 {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		// Field order as Connect writes it: the partition map is a Java
		// HashMap, which iterates kafka_partition before kafka_topic.
		b.WriteString(`{"partition":{"kafka_partition":`)
		b.WriteString(Itoa(r.Partition))
		b.WriteString(`,"kafka_topic":`)
		b.Write(java.AppendJackson(nil, r.Topic))
		b.WriteString(`},"offset":{"kafka_offset":`)
		b.WriteString(itoa64(r.Committed))
		b.WriteString(`}}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

func itoa64(n int64) string {
	if n < 0 {
		return "-" + itoa64(-n)
	}
	return Itoa(int(n))
}
