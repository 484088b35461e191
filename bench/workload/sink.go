package workload

import (
	"context"
	"fmt"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// LoadSink makes a sink's consumer group as Connect leaves it: group
// connect-NAME with a committed offset on every one of the partitions of
// topic (created here, empty: a sink that has read everything).
func LoadSink(addr, name, topic string, partitions int) error {
	if err := CreateTopic(addr, topic, partitions, nil); err != nil {
		return err
	}
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 60 * time.Second}
	ctx := context.Background()
	const batch = 10_000
	for lo := 0; lo < partitions; lo += batch {
		hi := min(lo+batch, partitions)
		commit := &kafkago.OffsetCommitRequest{GroupID: "connect-" + name, GenerationID: -1, Topics: map[string][]kafkago.OffsetCommit{}}
		for p := lo; p < hi; p++ {
			commit.Topics[topic] = append(commit.Topics[topic], kafkago.OffsetCommit{Partition: p, Offset: 0})
		}
		var err error
		for range 50 { // a broker just started may still be loading its group coordinator
			if err = commitAll(ctx, c, commit); err == nil {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			return fmt.Errorf("commit connect-%s: %w", name, err)
		}
	}
	return nil
}

func commitAll(ctx context.Context, c *kafkago.Client, commit *kafkago.OffsetCommitRequest) error {
	res, err := c.OffsetCommit(ctx, commit)
	if err != nil {
		return err
	}
	for topic, ps := range res.Topics {
		for _, p := range ps {
			if p.Error != nil {
				return fmt.Errorf("%s/%d: %w", topic, p.Partition, p.Error)
			}
		}
	}
	return nil
}
