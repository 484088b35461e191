package workload

import (
	"encoding/json"
	"fmt"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// MirrorConfigs writes the config of each of w's MirrorMaker 2 connectors
// (mm2-NN.MirrorSourceConnector) into the config topic at addr, as a
// worker's KafkaConfigBackingStore does: connector.class
// MirrorSourceConnector and source.cluster.bootstrap.servers source, so
// that koff's resume check asks that cluster for every stored partition's
// log (an address nothing listens on: the check says unknown, and why).
func MirrorConfigs(addr, configTopic, source string, w Spec) error {
	if w.Kind != "mm2" {
		return fmt.Errorf("source cluster configs are for the mm2 workload")
	}
	if err := CreateTopic(addr, configTopic, 1, map[string]string{"cleanup.policy": "compact"}); err != nil {
		return err
	}
	var recs []kafkago.Record
	for c := range w.conns() {
		name := fmt.Sprintf("mm2-%02d.MirrorSourceConnector", c)
		props, _ := json.Marshal(map[string]any{"properties": map[string]string{
			"name":                             name,
			"connector.class":                  "org.apache.kafka.connect.mirror.MirrorSourceConnector",
			"source.cluster.alias":             "primary",
			"target.cluster.alias":             "backup",
			"source.cluster.bootstrap.servers": source,
			"topics":                           "orders\\..*",
		}})
		recs = append(recs, kafkago.Record{Key: kafkago.NewBytes([]byte("connector-" + name)), Value: kafkago.NewBytes(props)})
	}
	client := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 30 * time.Second}
	ch := make(chan kafkago.Record, len(recs))
	for _, r := range recs {
		ch <- r
	}
	close(ch)
	return produce(client, configTopic, 0, ch)
}
