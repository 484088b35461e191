package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol/describegroups"
	metadataAPI "github.com/segmentio/kafka-go/protocol/metadata"

	"koff/kafka/security"
	"koff/model"
)

// GroupStore is where the lag poller reads which groups REST names and
// writes what it polled (store.Store).
type GroupStore interface {
	SinkGroups() []string
	SetGroups(at time.Time, polls []model.GroupPoll)
}

// PollGroups polls sink consumer groups every interval until ctx ends:
// every group named connect-* plus the groups REST names (overrides).
func (c Config) PollGroups(ctx context.Context, every time.Duration, store GroupStore) {
	for {
		c.PollGroupsOnce(ctx, store)
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// PollGroupsOnce polls the groups once into the store. On failure the
// store keeps the last numbers and every group says why.
func (c Config) PollGroupsOnce(ctx context.Context, store GroupStore) error {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	polls, err := c.GroupPolls(rctx, store.SinkGroups())
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		for _, g := range store.SinkGroups() {
			polls = append(polls, model.GroupPoll{Group: g, Err: c.Describe(err)})
		}
	}
	store.SetGroups(time.Now(), polls)
	return err
}

// GroupPolls polls the named groups and every connect-* group once.
func (c Config) GroupPolls(ctx context.Context, named []string) ([]model.GroupPoll, error) {
	client := c.lagClient()
	defer client.Transport.(*kafkago.Transport).CloseIdleConnections()
	return groupPolls(ctx, client, named)
}

// lagClient is the lag poll's client. The poll asks its own Metadata
// (logbounds.go): kafka-go's cache of every topic's partitions, which its
// transport fetches first, would be decoded for nothing (100 MB of garbage
// a minute at 100k partitions).
func (c Config) lagClient() *kafkago.Client {
	client := c.Client()
	client.Transport.(*kafkago.Transport).MetadataTopics = []string{"__consumer_offsets"}
	return client
}

func groupPolls(ctx context.Context, c *kafkago.Client, named []string) ([]model.GroupPoll, error) {
	lg, err := c.ListGroups(ctx, &kafkago.ListGroupsRequest{})
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, g := range lg.Groups {
		if strings.HasPrefix(g.GroupID, "connect-") {
			want[g.GroupID] = true
		}
	}
	exists := map[string]bool{}
	for _, g := range lg.Groups {
		exists[g.GroupID] = true
	}
	for _, g := range named {
		if exists[g] {
			want[g] = true
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(want))
	for g := range want {
		ids = append(ids, g)
	}
	sort.Strings(ids)
	polls, err := batchedGroupPolls(ctx, c, ids)
	if errors.Is(err, errOldBroker) {
		polls, err = groupPollsOneByOne(ctx, c, ids)
	}
	if err != nil {
		return nil, err
	}
	// Each partition once, however many groups read it.
	var tps []model.TopicPartition
	seen := map[string][]bool{}
	for _, id := range ids {
		for _, gp := range polls[id].Partitions {
			if gp.Partition < 0 {
				continue
			}
			s := seen[gp.Topic]
			if gp.Partition >= len(s) {
				s = append(s, make([]bool, gp.Partition+1-len(s))...)
				seen[gp.Topic] = s
			}
			if !s[gp.Partition] {
				s[gp.Partition] = true
				tps = append(tps, gp.TopicPartition)
			}
		}
	}
	// Log start and end offsets of every partition any group reads: one
	// request per kind and partition leader (logbounds.go).
	cluster := ""
	var starts, ends topicOffsets
	ls := &leaders{}
	if len(tps) > 0 {
		if starts, ends, ls, err = logBounds(ctx, c, tps); err != nil {
			return nil, fmt.Errorf("list offsets: %w", err)
		}
		cluster = ls.cluster
	} else {
		cluster = clusterID(ctx, c)
	}
	out := make([]model.GroupPoll, 0, len(ids))
	for _, id := range ids {
		p := polls[id]
		p.ClusterID = cluster
		for i := range p.Partitions {
			gp := &p.Partitions[i]
			gp.Start, gp.End = starts.of(gp.TopicPartition), ends.of(gp.TopicPartition)
			gp.LeaderEpochNow = ls.epochOf(gp.TopicPartition)
		}
		out = append(out, *p)
	}
	return out, nil
}

// batchedGroupPolls describes the groups and fetches their committed
// offsets in one request of each kind per coordinator (groupsraw.go).
func batchedGroupPolls(ctx context.Context, c *kafkago.Client, ids []string) (map[string]*model.GroupPoll, error) {
	if err := batchedVersions(ctx, c); err != nil {
		return nil, err
	}
	clientID := c.Transport.(*kafkago.Transport).ClientID
	m, err := c.Transport.RoundTrip(ctx, c.Addr, findCoordinatorsRequest(clientID, ids))
	if err != nil {
		return nil, err
	}
	coords := m.(*rawGroupRequest).result.(map[string]coordinator)
	polls := make(map[string]*model.GroupPoll, len(ids))
	byNode := map[int32][]string{}
	for _, id := range ids {
		p := &model.GroupPoll{Group: id}
		polls[id] = p
		switch co, ok := coords[id]; {
		case !ok:
			p.Err = "no coordinator in the broker's answer"
		case co.err != 0:
			p.Err = security.Describe(kafkago.Error(co.err))
		default:
			byNode[co.node] = append(byNode[co.node], id)
		}
	}
	for node, groups := range byNode {
		m, err := c.Transport.RoundTrip(ctx, c.Addr, describeGroupsRequest(clientID, node, groups))
		if err != nil {
			return nil, err
		}
		described := m.(*rawGroupRequest).result.(map[string]describedGroup)
		if m, err = c.Transport.RoundTrip(ctx, c.Addr, offsetFetchRequest(clientID, node, groups)); err != nil {
			return nil, err
		}
		fetched := m.(*rawGroupRequest).result.(map[string]fetchedOffsets)
		for _, id := range groups {
			p := polls[id]
			if d, ok := described[id]; ok {
				p.State, p.Members = d.state, len(d.clients)
				for _, cl := range d.clients {
					p.Clients = append(p.Clients, strings.Replace(cl, "@/", "@", 1))
				}
				sort.Strings(p.Clients)
				if d.err != 0 {
					p.Err = kafkago.Error(d.err).Title()
				}
			}
			f, ok := fetched[id]
			switch {
			case !ok:
				p.Err = "no committed offsets in the broker's answer"
				continue
			case f.err != 0:
				p.Err = security.Describe(kafkago.Error(f.err))
				continue
			}
			p.Partitions = slices.Grow(p.Partitions, len(f.offsets))
			for _, co := range f.offsets {
				if co.err == 0 && co.offset >= 0 {
					p.Partitions = append(p.Partitions, model.GroupPartition{TopicPartition: co.tp, Committed: co.offset, LeaderEpoch: co.epoch})
				}
			}
		}
	}
	return polls, nil
}

// groupPollsOneByOne is the same for brokers before Kafka 3.0: one
// DescribeGroups, and one OffsetFetch per group.
func groupPollsOneByOne(ctx context.Context, c *kafkago.Client, ids []string) (map[string]*model.GroupPoll, error) {
	// The raw request: kafka-go's DescribeGroups fails to decode the
	// member metadata of current consumer protocol versions, and koff
	// needs only the members themselves.
	m, err := c.Transport.RoundTrip(ctx, c.Addr, &describegroups.Request{Groups: ids})
	if err != nil {
		return nil, err
	}
	polls := map[string]*model.GroupPoll{}
	for _, g := range m.(*describegroups.Response).Groups {
		p := &model.GroupPoll{Group: g.GroupID, State: g.GroupState, Members: len(g.Members)}
		for _, mb := range g.Members {
			p.Clients = append(p.Clients, mb.ClientID+"@"+strings.TrimPrefix(mb.ClientHost, "/"))
		}
		sort.Strings(p.Clients)
		if g.ErrorCode != 0 {
			p.Err = kafkago.Error(g.ErrorCode).Title()
		}
		polls[g.GroupID] = p
	}
	for _, id := range ids {
		p := polls[id]
		if p == nil {
			p = &model.GroupPoll{Group: id}
			polls[id] = p
		}
		of, err := c.OffsetFetch(ctx, &kafkago.OffsetFetchRequest{GroupID: id})
		if err == nil && of.Error != nil {
			err = of.Error
		}
		if err != nil {
			p.Err = security.Describe(err)
			continue
		}
		for topic, parts := range of.Topics {
			for _, op := range parts {
				if op.Error != nil || op.CommittedOffset < 0 {
					continue
				}
				tp := model.TopicPartition{Topic: topic, Partition: op.Partition}
				p.Partitions = append(p.Partitions, model.GroupPartition{TopicPartition: tp, Committed: op.CommittedOffset, LeaderEpoch: -1})
			}
		}
	}
	return polls, nil
}

// clusterID is the id of the cluster that answers, "" if it cannot say:
// the Store tells a new cluster at the same address by it. kafka-go
// answers metadata from the client's own fresh cache, so this costs no
// request of its own.
func clusterID(ctx context.Context, c *kafkago.Client) string {
	m, err := c.Transport.RoundTrip(ctx, c.Addr, &metadataAPI.Request{TopicNames: []string{}})
	if err != nil {
		return ""
	}
	return m.(*metadataAPI.Response).ClusterID
}
