package planner

import (
	"context"
	"fmt"
	"strings"

	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// HomeTopic is the offsets topic a connector's offsets are planned in
// before Connect's REST API names its offsets.storage.topic (planREST):
// of the topics koff reads, the one holding the connector's offsets (its
// live ones, when several hold some), else the workers' topic, the first.
// Without it, a connector whose offsets live only in its own topic would
// be planned in the workers' topic, with no value before.
func (e *Planner) HomeTopic(name string, topics []string) string {
	var stored, live []string
	for _, t := range topics {
		rows := e.Store.Partitions(model.ConnectorID{Topic: t, Name: name})
		if len(rows) > 0 {
			stored = append(stored, t)
		}
		for _, r := range rows {
			if r.Live && !r.Deleted {
				live = append(live, t)
				break
			}
		}
	}
	switch {
	case len(live) == 1:
		return live[0]
	case len(live) == 0 && len(stored) == 1:
		return stored[0]
	}
	return topics[0]
}

// planSecondaryWrites adds, to a REST edit of a connector with its own
// offsets topic, the copy Connect's worker also writes to the workers'
// topic (ConnectorOffsetBackingStore#set: tombstones before, other
// records after the connector's topic, best effort), so the plan lists
// every record the edit makes.
func (e *Planner) planSecondaryWrites(ctx context.Context, p *plan.Plan) error {
	workers := e.topics()[0]
	if p.Topic == workers {
		return nil
	}
	n, err := e.Kafka.PartitionCount(ctx, workers)
	if err != nil {
		return err
	}
	for i := range p.Changes {
		ch := &p.Changes[i]
		if len(ch.Writes) == 0 {
			continue
		}
		w := ch.Writes[0]
		w.TopicPartition = model.TopicPartition{Topic: workers, Partition: java.PartitionFor(w.Key, n)}
		w.Existing, w.Before = false, nil
		if d, ok := e.Store.Partition(model.PartitionID{TopicPartition: w.TopicPartition, Key: string(w.Key)}); ok {
			w.Existing = true
			if !d.Deleted {
				w.Before = d.Value
			}
		}
		ch.Writes = append(ch.Writes, w)
	}
	return nil
}

// OwnTopic is the connector's own offsets.storage.topic when it is not the
// workers' ("" when it has none, or neither REST nor the config topic can
// say): REST's config first, else the config topic's, as the Store judges
// it (model.ConnectorRow.OwnTopic). Its tasks read that topic only:
// ConnectorOffsetBackingStore#get overlays the workers' store with the
// connector's, whose KafkaOffsetBackingStore answers every key asked, null
// for one it lacks, so no copy in the workers' topic is ever read.
func (e *Planner) OwnTopic(ctx context.Context, name string) string {
	own := ""
	known := false
	if e.REST != nil {
		if cfg, err := e.REST.ConnectorConfig(ctx, name); err == nil {
			own, known = strings.TrimSpace(cfg["offsets.storage.topic"]), true
		}
	}
	if c, _, ok := e.configOf(name); !known && ok && c.Config != nil {
		own = c.OwnOffsetsTopic()
	}
	if topics := e.topics(); len(topics) > 0 && own == topics[0] {
		return ""
	}
	return own
}

// NotReadText says why a copy in another offsets topic than the
// connector's own is not what its tasks read (koff get's "not read").
func NotReadText(own string) string {
	return fmt.Sprintf("the connector has its own offsets.storage.topic %s, which its tasks read instead of this one (ConnectorOffsetBackingStore)", own)
}
