package cli

import (
	"context"
	"maps"
	"slices"
	"time"

	"koff/kafka"
	"koff/model"
	"koff/model/resume"
	"koff/probe"
)

// The live resume check of sinks from the lag poller's poll: the group's
// committed offsets and its partitions' log start and end are what the
// lag poller polled at this --refresh, so the check does not poll them a
// second time. It asks only where the committed offsets' leader epochs
// end (OffsetsForLeaderEpoch), and of those only the partitions whose
// offset, epoch or log moved since the last check; a sink whose poll is
// the same as at the last check is not judged again. A group the lag
// poller did not poll, or not all of (an error, a log it could not read),
// is checked by probe.Checker as koff check does: its answer names why.

// sinkMemo is what the last check of a sink was made from, and said.
type sinkMemo struct {
	group, class string
	config       map[string]string
	poll         []model.GroupPartition // the Store's, sorted by topic-partition
	ends         []int64                // where each one's epoch ends, by place in poll (-1: not known; epochNotAsked)
	result       resume.Connector
}

// sharedPoll is the Store's poll of a sink's group when every partition's
// log in it was read; false sends the sink to the plain check.
func sharedPoll(o *observer, group string) ([]model.GroupPartition, bool) {
	poll, _, ok := o.store.GroupPollOf(group)
	if !ok || poll.Err != "" {
		return nil, false
	}
	for _, gp := range poll.Partitions {
		if gp.Partition < 0 || gp.Start < 0 || gp.End < 0 {
			return nil, false
		}
	}
	return poll.Partitions, true
}

// checkSharedSinks judges the sinks among sources (by index) whose groups
// the lag poller polled whole, into out, and returns the indexes of the
// sinks left for the plain check. memo is the last check's, replaced by
// this one's.
func (p *resumePoller) checkSharedSinks(ctx context.Context, o *observer, sources []probe.Source, idx []int, out []resume.Connector, at time.Time) (plain []int) {
	type pending struct {
		i    int
		memo *sinkMemo
	}
	var todo []pending
	var asks []kafka.EpochAt
	memos := make(map[string]*sinkMemo, len(idx))
	for _, i := range idx {
		s := sources[i]
		group := checkGroupOf(s)
		poll, ok := sharedPoll(o, group)
		if !ok {
			plain = append(plain, i)
			continue
		}
		last := p.sinks[s.Name]
		if last != nil && last.group == group && last.class == s.Class && maps.Equal(last.config, s.Config) && slices.Equal(last.poll, poll) {
			// Nothing it is judged by moved: the same answer, checked now.
			r := last.result
			r.Checked = at
			out[i] = r
			m := *last
			m.result = r
			memos[s.Name] = &m
			continue
		}
		m := &sinkMemo{group: group, class: s.Class, config: s.Config, poll: poll, ends: make([]int64, len(poll))}
		var prev []model.GroupPartition
		var prevEnds []int64
		if last != nil && last.group == group {
			prev, prevEnds = last.poll, last.ends
		}
		// Both polls are sorted by topic-partition: one walk finds each
		// partition's last answer.
		k := 0
		for j, gp := range poll {
			m.ends[j] = epochNotAsked
			if gp.LeaderEpoch < 0 || gp.Committed < 0 || gp.EpochIsCurrent() {
				continue
			}
			for k < len(prev) && compareTP(prev[k].TopicPartition, gp.TopicPartition) < 0 {
				k++
			}
			if k < len(prev) && prev[k] == gp {
				m.ends[j] = prevEnds[k]
				continue
			}
			m.ends[j] = askEpoch
			asks = append(asks, kafka.EpochAt{TopicPartition: gp.TopicPartition, Epoch: gp.LeaderEpoch})
		}
		todo = append(todo, pending{i, m})
		memos[s.Name] = m
	}
	var ends map[kafka.EpochAt]int64
	if len(asks) > 0 {
		timeout := p.ck.Timeout
		if timeout <= 0 {
			timeout = probe.DefaultTimeout
		}
		pctx, cancel := context.WithTimeout(ctx, timeout)
		var err error
		slices.SortFunc(asks, func(a, b kafka.EpochAt) int {
			if c := compareTP(a.TopicPartition, b.TopicPartition); c != 0 {
				return c
			}
			return int(a.Epoch - b.Epoch)
		})
		ends, err = p.ck.Kafka.EpochEnds(pctx, slices.Compact(asks))
		cancel()
		if err != nil {
			// The plain check says why, as koff check would.
			for _, t := range todo {
				plain = append(plain, t.i)
				delete(memos, sources[t.i].Name)
			}
			todo = nil
		}
	}
	for _, t := range todo {
		s, m := sources[t.i], t.memo
		parts := make([]resume.SinkPartition, len(m.poll))
		for j, gp := range m.poll {
			if m.ends[j] == askEpoch {
				m.ends[j] = epochNotAsked
				if e, asked := ends[kafka.EpochAt{TopicPartition: gp.TopicPartition, Epoch: gp.LeaderEpoch}]; asked {
					m.ends[j] = e
				}
			}
			parts[j] = probe.SinkPartitionOf(gp, max(m.ends[j], -1), m.ends[j] != epochNotAsked, "")
		}
		m.result = resume.Sink(s.Name, s.Class, s.Config, m.group, parts, "", at)
		out[t.i] = m.result
	}
	p.sinks = memos
	return plain
}

// In sinkMemo.ends: an epoch to be asked at this check, and one not
// asked (no epoch, no offset, or the broker did not answer for it).
const (
	askEpoch      = -2
	epochNotAsked = -3
)

func compareTP(a, b model.TopicPartition) int {
	if a.Topic != b.Topic {
		if a.Topic < b.Topic {
			return -1
		}
		return 1
	}
	return a.Partition - b.Partition
}

// checkGroupOf is a sink's consumer group as probe.Checker names it.
func checkGroupOf(s probe.Source) string {
	if s.Group != "" {
		return s.Group
	}
	return model.SinkGroupName(s.Name, s.Config)
}
