package demo

import (
	"context"
	"time"

	"koff/demo/rest"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A source connector whose offsets.storage.topic differs from the worker's
// (jdbc-crm) gets a ConnectorOffsetBackingStore of two stores: its own topic
// (primary) and the worker's (secondary). What that means, in Connect's
// code (Worker#offsetStoreForRegularSourceTask, ConnectorOffsetBackingStore):
//
//   - reads: the worker store's answer overlaid with the connector store's,
//     which answers every key, null when it has none: its own topic is
//     authoritative, and the copies in the worker's topic are never read;
//   - task commits: everything to the primary, then (if that worked) the
//     same records to the secondary, best effort;
//   - REST PATCH and DELETE (3.8+, KAFKA-15018): tombstones to the secondary
//     first, then everything to the primary, then the other records to the
//     secondary, best effort; before 3.8, primary then secondary for all;
//   - REST GET and DELETE see the union of both stores' partitions.

// secondaryTopic is the worker's topic when the connector has a topic of
// its own, else "".
func (c *connector) secondaryTopic() string {
	if c.spec.offsetsTopic == "" || c.spec.offsetsTopic == c.w.offsetsTopic {
		return ""
	}
	return c.w.offsetsTopic
}

// copyTo returns recs re-addressed to another offsets topic: same key and
// value, the key's murmur2 partition there (every offsets topic has the
// worker's partition count), a CreateTime of now.
func copyTo(recs []*kgo.Record, topic string) []*kgo.Record {
	now := time.Now()
	out := make([]*kgo.Record, len(recs))
	for i, r := range recs {
		out[i] = &kgo.Record{Topic: topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: now}
	}
	return out
}

// writeSecondary copies a task's flushed offset records to the worker's
// topic after they reached the connector's own. Like Connect it only logs a
// failure: the secondary write is best effort.
func (c *connector) writeSecondary(ctx context.Context, recs []*kgo.Record) {
	topic := c.secondaryTopic()
	if topic == "" || len(recs) == 0 {
		return
	}
	if err := c.w.client.ProduceSync(ctx, copyTo(recs, topic)...).FirstErr(); err != nil {
		c.w.logf("Failed to write offsets to secondary backing store: %v", err)
	}
}

// writeEdit writes the records of a REST offset edit (addressed to the
// connector's offsets topic) as ConnectorOffsetBackingStore#set does; see
// the top of this file. tombstonesFirst is the 3.8+ order. An error is a
// failed write that Connect surfaces.
func (c *connector) writeEdit(ctx context.Context, recs []*kgo.Record, tombstonesFirst bool) error {
	cl := c.w.client
	secondary := c.secondaryTopic()
	if secondary == "" {
		return cl.ProduceSync(ctx, recs...).FirstErr()
	}
	var tombstones, values []*kgo.Record
	for _, r := range recs {
		if r.Value == nil {
			tombstones = append(tombstones, r)
		} else {
			values = append(values, r)
		}
	}
	if !tombstonesFirst {
		values = recs
	} else if len(tombstones) > 0 {
		if err := cl.ProduceSync(ctx, copyTo(tombstones, secondary)...).FirstErr(); err != nil {
			return err
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return err
	}
	if len(values) > 0 {
		if err := cl.ProduceSync(ctx, copyTo(values, secondary)...).FirstErr(); err != nil {
			c.w.logf("Failed to write offsets to secondary backing store: %v", err)
		}
	}
	return nil
}

// view is what a fresh ConnectorOffsetBackingStore for the connector holds
// after reading its topics to the end: partitions from both stores, offsets
// from the connector's own topic only.
func (c *connector) view(ctx context.Context) (rest.StoreView, error) {
	recs, err := c.w.readAll(ctx, c.offsetsTopic())
	if err != nil {
		return rest.StoreView{}, err
	}
	v := rest.ViewOf(recs, c.spec.name)
	if topic := c.secondaryTopic(); topic != "" {
		recs, err := c.w.readAll(ctx, topic)
		if err != nil {
			return rest.StoreView{}, err
		}
		for id, p := range rest.ViewOf(recs, c.spec.name).Parts {
			if _, ok := v.Parts[id]; !ok {
				v.Parts[id] = p
			}
		}
	}
	return v, nil
}
