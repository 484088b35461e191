package kafka

import (
	"context"
	"errors"
	"slices"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model"
)

// What the resume check (package probe) asks of a cluster: the log start
// and end of the partitions a connector resumes in, with a topic the
// brokers do not have (deleted, not authorised) named rather than failing
// the rest.

// Unread is what a look at logs could not read, with why in one line: a
// topic by its name (missing, not authorised), a partition by "topic/N"
// (one its topic lacks).
type Unread map[string]string

// Of is why tp's log could not be read, "" when it was.
func (u Unread) Of(tp model.TopicPartition) string {
	if why := u[tp.Topic]; why != "" {
		return why
	}
	return u[tp.String()]
}

// TopicBounds is each partition's log start and end (high watermark), and
// what could not be read.
func (c Config) TopicBounds(ctx context.Context, tps []model.TopicPartition) (map[model.TopicPartition][2]int64, Unread, error) {
	client := c.lagClient()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	out := make(map[model.TopicPartition][2]int64, len(tps))
	if len(tps) == 0 {
		return out, nil, nil
	}
	starts, ends, _, bad, err := logBoundsEach(ctx, client, tps)
	if err != nil {
		return nil, nil, err
	}
	for _, tp := range tps {
		if bad[tp.Topic] == nil && bad[tp.String()] == nil {
			out[tp] = [2]int64{starts.of(tp), ends.of(tp)}
		}
	}
	return out, c.badTopics(bad), nil
}

// GroupBounds polls the named consumer groups only (not every connect-*
// group, as GroupPolls does): their committed offsets, each partition's
// log start and end (-1 and -1 for one whose log could not be read), and
// what could not be read.
func (c Config) GroupBounds(ctx context.Context, groups []string) ([]model.GroupPoll, Unread, error) {
	client := c.lagClient()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	groups = slices.Compact(slices.Sorted(slices.Values(groups)))
	if len(groups) == 0 {
		return nil, nil, nil
	}
	polls, err := batchedGroupPolls(ctx, client, groups)
	if errors.Is(err, errOldBroker) {
		polls, err = groupPollsOneByOne(ctx, client, groups)
	}
	if err != nil {
		return nil, nil, err
	}
	var tps []model.TopicPartition
	seen := map[model.TopicPartition]bool{}
	for _, g := range groups {
		for _, gp := range polls[g].Partitions {
			if gp.Partition >= 0 && !seen[gp.TopicPartition] {
				seen[gp.TopicPartition] = true
				tps = append(tps, gp.TopicPartition)
			}
		}
	}
	var starts, ends topicOffsets
	var bad map[string]error
	if len(tps) > 0 {
		if starts, ends, _, bad, err = logBoundsEach(ctx, client, tps); err != nil {
			return nil, nil, err
		}
	}
	out := make([]model.GroupPoll, 0, len(groups))
	for _, g := range groups {
		p := polls[g]
		for i := range p.Partitions {
			gp := &p.Partitions[i]
			gp.Start, gp.End = -1, -1
			if bad[gp.Topic] == nil && bad[gp.String()] == nil && gp.Partition >= 0 {
				gp.Start, gp.End = starts.of(gp.TopicPartition), ends.of(gp.TopicPartition)
			}
		}
		out = append(out, *p)
	}
	return out, c.badTopics(bad), nil
}

func (c Config) badTopics(bad map[string]error) Unread {
	out := make(Unread, len(bad))
	for t, err := range bad {
		out[t] = c.Describe(err)
	}
	return out
}
