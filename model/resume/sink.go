package resume

import (
	"sort"
	"strconv"
	"time"
)

// SinkPartition is what koff read of one topic-partition a sink's
// consumer group committed: the next offset it will consume and the
// partition's log, or why the log could not be read.
type SinkPartition struct {
	Topic     string
	Partition int
	Committed int64
	Log       Log
	Err       string
}

// Sink judges a sink connector from its group's committed offsets, under
// the auto.offset.reset its consumer gets (SinkPolicy). groupErr is why
// the group could not be read at all.
func Sink(name, class string, config map[string]string, group string, parts []SinkPartition, groupErr string, at time.Time) Connector {
	c := Connector{Name: name, Class: class, Type: "sink", Checked: at}
	if groupErr != "" {
		c.Reason = "cannot read consumer group " + group + ": " + groupErr
		return c
	}
	p := SinkPolicy(config)
	if len(parts) == 0 {
		c.Note = "no committed offsets in consumer group " + group + ": its tasks start from " + p.text() + " where the log allows"
		return c
	}
	sorted := append([]SinkPartition(nil), parts...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Topic != sorted[j].Topic {
			return sorted[i].Topic < sorted[j].Topic
		}
		return sorted[i].Partition < sorted[j].Partition
	})
	for _, sp := range sorted {
		id := sp.Topic + "/" + strconv.Itoa(sp.Partition)
		if sp.Err != "" {
			c.Partitions = append(c.Partitions, Partition{Partition: id, Position: "offset " + itoa(sp.Committed), State: Unknown,
				Lost: None, Replayed: None, Reason: "cannot read the log of " + id + ": " + sp.Err})
			continue
		}
		if sp.Committed < 0 {
			c.Partitions = append(c.Partitions, Partition{Partition: id, Position: "none committed", State: Resumes, Lost: None, Replayed: None,
				Action: "no committed offset: the task starts where " + p.text() + " puts it"})
			continue
		}
		r := JudgeOffset(sp.Committed, sp.Log, p)
		r.Partition = id
		c.Partitions = append(c.Partitions, r)
	}
	return c
}
