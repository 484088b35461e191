package kafka

import (
	"context"
	"errors"
	"slices"

	kafkago "github.com/segmentio/kafka-go"
	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"

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
	if len(u) == 0 {
		return ""
	}
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
	if len(tps) == 0 {
		return map[model.TopicPartition][2]int64{}, nil, nil
	}
	starts, ends, _, bad, err := logBoundsEach(ctx, client, tps)
	if err != nil {
		return nil, nil, c.whyUnreached(ctx, err)
	}
	// Made once the cluster answered: a million partitions' map is 50 MB
	// for nothing when it does not.
	out := make(map[model.TopicPartition][2]int64, len(tps))
	for _, tp := range tps {
		if len(bad) == 0 || bad[tp.Topic] == nil && bad[tp.String()] == nil {
			out[tp] = [2]int64{starts.of(tp), ends.of(tp)}
		}
	}
	return out, c.badTopics(bad), nil
}

// SinkLogs is what a resume check reads of sinks' groups: each group's
// committed offsets with their leader epochs, each partition's log start
// and end (-1 and -1 for one whose log could not be read), where the log
// says each committed epoch ends (-1: an epoch it does not know), and
// what could not be read.
type SinkLogs struct {
	Polls     []model.GroupPoll
	EpochEnds map[EpochAt]int64
	Unread    Unread
}

// GroupBounds polls the named consumer groups only (not every connect-*
// group, as GroupPolls does), and asks the logs what a consumer starting
// from their committed offsets would ask: the log start and end, and, for
// an offset with a leader epoch, where that epoch ends (the consumer
// validates its position against it, "Truncation detected").
func (c Config) GroupBounds(ctx context.Context, groups []string) (SinkLogs, error) {
	client := c.lagClient()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	groups = slices.Compact(slices.Sorted(slices.Values(groups)))
	if len(groups) == 0 {
		return SinkLogs{}, nil
	}
	polls, err := batchedGroupPolls(ctx, client, groups)
	if errors.Is(err, errOldBroker) {
		polls, err = groupPollsOneByOne(ctx, client, groups)
	}
	if err != nil {
		return SinkLogs{}, c.whyUnreached(ctx, err)
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
	ls := &leaders{}
	if len(tps) > 0 {
		if starts, ends, ls, bad, err = logBoundsEach(ctx, client, tps); err != nil {
			return SinkLogs{}, err
		}
	}
	out := SinkLogs{Polls: make([]model.GroupPoll, 0, len(groups)), Unread: c.badTopics(bad)}
	var asks []EpochAt
	asked := map[EpochAt]bool{}
	for _, g := range groups {
		p := polls[g]
		for i := range p.Partitions {
			gp := &p.Partitions[i]
			gp.Start, gp.End = -1, -1
			if gp.Partition >= 0 && (len(bad) == 0 || bad[gp.Topic] == nil && bad[gp.String()] == nil) {
				gp.Start, gp.End = starts.of(gp.TopicPartition), ends.of(gp.TopicPartition)
				gp.LeaderEpochNow = ls.epochOf(gp.TopicPartition)
				if a := (EpochAt{gp.TopicPartition, gp.LeaderEpoch}); a.Epoch >= 0 && !gp.EpochIsCurrent() && !asked[a] {
					asked[a] = true
					asks = append(asks, a)
				}
			}
		}
		out.Polls = append(out.Polls, *p)
	}
	if out.EpochEnds, err = epochEnds(ctx, client, asks); err != nil {
		return SinkLogs{}, err
	}
	return out, nil
}

func (c Config) badTopics(bad map[string]error) Unread {
	out := make(Unread, len(bad))
	for t, err := range bad {
		out[t] = c.Describe(err)
	}
	return out
}

// whyUnreached is err, or the transport's own error when err only says
// that no broker could be picked: kafka-go's cluster metadata is empty
// when it could not reach the bootstrap servers (a name that does not
// resolve, a refused connection), and its error is the one to show.
func (c Config) whyUnreached(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	tr := c.transport()
	defer tr.CloseIdleConnections()
	if _, merr := tr.RoundTrip(ctx, c.addr(), &metadataAPI.Request{TopicNames: []string{}}); merr != nil {
		return merr
	}
	return err
}

// EpochEnds asks where each leader epoch ends in its partition's log
// (-1: an epoch the log does not know), as GroupBounds does for the
// committed offsets it polls: the resume check of a group polled by the
// lag poller asks this alone, and only of the offsets that moved.
func (c Config) EpochEnds(ctx context.Context, asks []EpochAt) (map[EpochAt]int64, error) {
	client := c.lagClient()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	ends, err := epochEnds(ctx, client, asks)
	if err != nil {
		return nil, c.whyUnreached(ctx, err)
	}
	return ends, nil
}
