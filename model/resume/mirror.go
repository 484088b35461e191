package resume

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Connector classes whose positions koff checks besides sinks (Debezium's
// are the database checks').
const (
	ClassMirrorSource     = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
	ClassMirrorCheckpoint = "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"
	ClassMirrorHeartbeat  = "org.apache.kafka.connect.mirror.MirrorHeartbeatConnector"
	ClassFileStreamSource = "org.apache.kafka.connect.file.FileStreamSourceConnector"
)

// MirrorOffset is one stored MirrorSourceConnector partition, as
// MirrorUtils.wrapPartition and wrapOffset write it:
// {"cluster":ALIAS,"partition":N,"topic":T} → {"offset":LAST COPIED}.
type MirrorOffset struct {
	// Partition is the stored map as compact JSON.
	Partition string
	Cluster   string
	Topic     string
	Num       int
	// Offset is the source offset of the last record copied; -1 when the
	// stored offset holds none (MirrorUtils.unwrapOffset).
	Offset int64
}

// ParseMirrorOffset reads a stored MirrorMaker 2 partition and offset
// (compact JSON), its numbers exactly.
func ParseMirrorOffset(partition, offset string) (MirrorOffset, error) {
	if m, ok := mirrorPlain(partition, offset); ok {
		return m, nil
	}
	return parseMirrorDecoded(partition, offset)
}

// parseMirrorDecoded is ParseMirrorOffset by JSON decoding, for any form.
func parseMirrorDecoded(partition, offset string) (MirrorOffset, error) {
	m := MirrorOffset{Partition: partition, Offset: -1}
	var p map[string]any
	if err := decodeExact(partition, &p); err != nil || p == nil {
		return m, fmt.Errorf("partition %s is not a MirrorMaker 2 partition map", partition)
	}
	m.Cluster, _ = p["cluster"].(string)
	m.Topic, _ = p["topic"].(string)
	n, ok := p["partition"].(json.Number)
	num, err := strconv.Atoi(string(n))
	if !ok || err != nil || m.Topic == "" {
		return m, fmt.Errorf("partition %s has no topic and partition number", partition)
	}
	m.Num = num
	var o map[string]any
	if err := decodeExact(offset, &o); err != nil {
		return m, fmt.Errorf("offset %s is not JSON", offset)
	}
	v, ok := o["offset"]
	if !ok || v == nil {
		return m, nil
	}
	on, ok := v.(json.Number)
	off, err := strconv.ParseInt(string(on), 10, 64)
	if !ok || err != nil {
		// MirrorUtils.unwrapOffset casts it to Long: the task fails.
		return m, fmt.Errorf("offset %s is not a whole number: MirrorSourceTask cannot read it (ClassCastException)", offset)
	}
	m.Offset = off
	return m, nil
}

func decodeExact(s string, v any) error {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	return d.Decode(v)
}

// MirrorPartition is one stored MirrorMaker 2 partition with the log of
// its topic-partition on the source cluster, or why koff has none.
type MirrorPartition struct {
	Offset MirrorOffset
	Log    Log
	Err    string
}

// Mirror judges a MirrorSourceConnector. Its stored offset is the last
// source record copied: MirrorSourceTask.initializeConsumer seeks the
// source consumer to offset+1, and skips the seek for a partition with no
// offset (or a negative one), so the consumer's auto.offset.reset
// (MirrorPolicy) places it. A position out of the source log is reset by
// the same policy.
func Mirror(name, class string, config map[string]string, parts []MirrorPartition, at time.Time) Connector {
	c := Connector{Name: name, Class: class, Type: "source", Checked: at}
	p := MirrorPolicy(config)
	if len(parts) == 0 {
		c.Note = "no offsets stored: its tasks start each source partition where " + p.text() + " puts it"
		return c
	}
	c.Partitions = make([]Partition, 0, len(parts)) // a million: no copies growing it
	for _, mp := range parts {
		o := mp.Offset
		if mp.Err != "" {
			pos := "offset " + itoa(o.Offset)
			if o.Offset < 0 {
				pos = "none copied"
			}
			c.Partitions = append(c.Partitions, Partition{Partition: o.Partition, Position: pos, State: Unknown, Lost: None, Replayed: None, Reason: mp.Err})
			continue
		}
		if o.Offset < 0 {
			c.Partitions = append(c.Partitions, Partition{Partition: o.Partition, Position: "none copied", State: Resumes, Lost: None, Replayed: None,
				Action: "no offset copied: MirrorSourceTask does not seek, and " + p.text() + " places the consumer"})
			continue
		}
		r := JudgeOffset(o.Offset+1, mp.Log, p)
		r.Partition = o.Partition
		r.Position = "offset " + itoa(o.Offset) + " copied, next " + itoa(o.Offset+1)
		r.Action = strings.Replace(r.Action, "offset "+itoa(o.Offset+1), "source offset "+itoa(o.Offset+1), 1)
		c.Partitions = append(c.Partitions, r)
	}
	return c
}
