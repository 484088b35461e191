package demo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OrphanSinkGroup is the consumer group of a sink connector,
// clickstream-archive, deleted from Connect weeks before the demo: its
// committed offset of OrphanSinkTopic stayed behind (Kafka keeps a group's
// offsets until offsets.retention.minutes after it empties), and retention
// has since deleted the records past it. A sink created again under that
// name would resume from the group's offset, which no longer exists:
// Connect's auto.offset.reset=earliest moves it to the log start and the
// records in between are skipped (koff's resume check says gap).
const (
	OrphanSinkGroup = "connect-clickstream-archive"
	OrphanSinkTopic = "web.clicks"
)

// The orphan sink's topic holds orphanSinkRecords records, of which
// retention deleted those before orphanSinkStart; the group committed
// orphanSinkCommitted, so a restart skips orphanSinkStart -
// orphanSinkCommitted records.
const (
	orphanSinkRecords   = 500
	orphanSinkStart     = 380
	orphanSinkCommitted = 120
)

// seedOrphanSink writes the orphan sink's topic, deletes its oldest
// records as retention would, and commits the group's offset below them.
func (b *Broker) seedOrphanSink(ctx context.Context, client *kgo.Client, start time.Time) error {
	if err := b.createTopic(ctx, OrphanSinkTopic, 1, nil); err != nil {
		return err
	}
	recs := make([]*kgo.Record, orphanSinkRecords)
	for i := range recs {
		recs[i] = &kgo.Record{Topic: OrphanSinkTopic, Partition: 0, Key: []byte("session-" + strconv.Itoa(i%37)),
			Value:     []byte(`{"page":"/p/` + strconv.Itoa(i) + `"}`),
			Timestamp: start.Add(-30*24*time.Hour + time.Duration(i)*time.Minute)}
	}
	if err := client.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("seed %s: %w", OrphanSinkTopic, err)
	}
	// OffsetCommit v10 names the topic by its id.
	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(OrphanSinkTopic)
	meta.Topics = append(meta.Topics, mt)
	mres, err := meta.RequestWith(ctx, client)
	if err == nil && len(mres.Topics) != 1 {
		err = fmt.Errorf("%d topics in the answer", len(mres.Topics))
	}
	if err != nil {
		return fmt.Errorf("metadata of %s: %w", OrphanSinkTopic, err)
	}
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.Generation = OrphanSinkGroup, -1
	ct := kmsg.NewOffsetCommitRequestTopic()
	ct.Topic, ct.TopicID = OrphanSinkTopic, mres.Topics[0].TopicID
	cp := kmsg.NewOffsetCommitRequestTopicPartition()
	cp.Partition, cp.Offset, cp.LeaderEpoch = 0, orphanSinkCommitted, -1
	ct.Partitions = append(ct.Partitions, cp)
	commit.Topics = append(commit.Topics, ct)
	cres, err := commit.RequestWith(ctx, client)
	if err == nil {
		err = kerr.ErrorForCode(cres.Topics[0].Partitions[0].ErrorCode)
	}
	if err != nil {
		return fmt.Errorf("commit %s: %w", OrphanSinkGroup, err)
	}
	del := kmsg.NewPtrDeleteRecordsRequest()
	del.TimeoutMillis = 10000
	dt := kmsg.NewDeleteRecordsRequestTopic()
	dt.Topic = OrphanSinkTopic
	dp := kmsg.NewDeleteRecordsRequestTopicPartition()
	dp.Partition, dp.Offset = 0, orphanSinkStart
	dt.Partitions = append(dt.Partitions, dp)
	del.Topics = append(del.Topics, dt)
	dres, err := del.RequestWith(ctx, client)
	if err == nil {
		err = kerr.ErrorForCode(dres.Topics[0].Partitions[0].ErrorCode)
	}
	if err != nil {
		return fmt.Errorf("delete records of %s: %w", OrphanSinkTopic, err)
	}
	return nil
}
