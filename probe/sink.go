package probe

import (
	"context"
	"time"

	"koff/kafka"
	"koff/model"
	"koff/model/resume"
)

// sinks checks the sinks among sources (their indexes in idx) with one
// poll of all their groups: committed offsets and each partition's log.
func (c *Checker) sinks(ctx context.Context, sources []Source, idx []int, out []resume.Connector, at time.Time) {
	groups := make([]string, len(idx))
	for k, i := range idx {
		groups[k] = groupOf(sources[i])
	}
	pctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	logs, err := c.Kafka.GroupBounds(pctx, groups)
	byGroup := make(map[string]model.GroupPoll, len(logs.Polls))
	for _, p := range logs.Polls {
		byGroup[p.Group] = p
	}
	for k, i := range idx {
		s := sources[i]
		g := groups[k]
		if err != nil {
			out[i] = resume.Sink(s.Name, s.Class, s.Config, g, nil, c.Kafka.Describe(err), at)
			continue
		}
		p := byGroup[g]
		parts := make([]resume.SinkPartition, 0, len(p.Partitions))
		for _, gp := range p.Partitions {
			end, asked := logs.EpochEnds[kafka.EpochAt{TopicPartition: gp.TopicPartition, Epoch: gp.LeaderEpoch}]
			parts = append(parts, SinkPartitionOf(gp, end, asked, logs.Unread.Of(gp.TopicPartition)))
		}
		out[i] = resume.Sink(s.Name, s.Class, s.Config, g, parts, p.Err, at)
	}
}

// groupOf is a sink's consumer group: the one the caller named, else the
// connector's consumer.override.group.id, else connect-<name>.
func groupOf(s Source) string {
	if s.Group != "" {
		return s.Group
	}
	return model.SinkGroupName(s.Name, s.Config)
}

// SinkPartitionOf is what the check judges of a group's partition: where
// the broker said its committed epoch ends (asked), or, for the leader's
// current epoch, which it is not asked of, the log end.
func SinkPartitionOf(gp model.GroupPartition, epochEnd int64, asked bool, unread string) resume.SinkPartition {
	if !asked && gp.EpochIsCurrent() {
		epochEnd, asked = gp.End, true
	}
	return resume.SinkPartition{Topic: gp.Topic, Partition: gp.Partition, Committed: gp.Committed, Epoch: gp.LeaderEpoch,
		EpochEnd: epochEnd, EpochAsked: asked, Log: resume.Log{Start: gp.Start, End: gp.End}, Err: unread}
}
