package cli

import (
	"context"
	"strings"
	"testing"

	"koff/demo"
	"koff/kafka"
	"koff/model"
)

// Issue 20: a sink whose consumer reads another Kafka cluster
// (consumer.override.bootstrap.servers in its config) is not edited on the
// -b cluster as if that cluster held its group: koff refuses, naming the
// cluster, and leaves a same-named group on -b alone; pointed at that
// cluster with -b, it edits the group there and the plan says where.
func TestSinkOnAnotherClusterIsNotEditedOnThisOne(t *testing.T) {
	here, there := broker(t), broker(t)
	ctx := context.Background()
	cfg := `{"properties":{"connector.class":"com.example.FarSink","topics":"logs","consumer.override.bootstrap.servers":"` + there.Bootstrap() + `","name":"far"}}`
	for _, b := range []*demo.Broker{here, there} {
		for name, n := range map[string]int{"connect-offsets": 25, "connect-configs": 1, "logs": 1} {
			if err := b.CreateTopic(name, n, nil); err != nil {
				t.Fatal(err)
			}
		}
		produceTo(t, b.Bootstrap(), "logs", 0, [2]string{"a", "1"}, [2]string{"b", "2"}, [2]string{"c", "3"})
		produceTo(t, b.Bootstrap(), "connect-configs", 0,
			[2]string{"connector-far", cfg},
			[2]string{"target-state-far", `{"state":"PAUSED","state.v2":"STOPPED"}`})
		if err := (kafka.Config{Brokers: []string{b.Bootstrap()}}).CommitGroupOffsets(ctx, "connect-far", map[model.TopicPartition]int64{{Topic: "logs", Partition: 0}: 3}); err != nil {
			t.Fatal(err)
		}
	}
	_, errs, code := koff(t, withAudit(t, "set", "far", "--to-earliest", "--yes", "-b", here.Bootstrap())...)
	if code == 0 || !strings.Contains(errs, "sink far reads another Kafka cluster (consumer.override.bootstrap.servers="+there.Bootstrap()+"): its group connect-far lives there, not on "+here.Bootstrap()) {
		t.Errorf("set on the wrong cluster: exit %d %q", code, errs)
	}
	if out, _, _ := koff(t, "get", "far", "-o", "json", "-b", here.Bootstrap()); !strings.Contains(out, `"offset":{"kafka_offset":3}`) {
		t.Errorf("the group of the same name on -b moved: %s", out)
	}
	out, errs, code := koff(t, withAudit(t, "set", "far", "--to-earliest", "--yes", "-b", there.Bootstrap())...)
	if code != 0 || !strings.Contains(out, "group connect-far on "+there.Bootstrap()+" (its consumer.override.bootstrap.servers, as -b)") || !strings.Contains(out, "verified") {
		t.Fatalf("set on the sink's cluster: exit %d %s\n%s", code, errs, out)
	}
	if out, _, _ := koff(t, "get", "far", "-o", "json", "-b", there.Bootstrap()); !strings.Contains(out, `"offset":{"kafka_offset":0}`) {
		t.Errorf("the sink's group on its own cluster: %s", out)
	}
}
