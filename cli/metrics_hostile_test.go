package cli

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/kafka"
)

// A connector key with a \ud800 escape and a consumer group connect-<0xff>
// never take the endpoint down: every scrape answers 200 with every other
// connector's series, shows the names escaped as koff shows them, and
// promtool check metrics accepts it.
func TestMetricsScrapesStayWholeWithHostileNames(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr,
		[2]string{`["good",{"server":"db"}]`, `{"lsn":1}`},
		[2]string{`["bad\ud800",{"server":"db"}]`, `{"lsn":2}`},
		[2]string{"[\"ctl\\u001b[2J\",{\"server\":\"db\"}]", `{"lsn":3}`})
	c := kafka.Config{Brokers: []string{addr}}.Client()
	if _, err := c.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: "logs", NumPartitions: 1, ReplicationFactor: 1}}}); err != nil {
		t.Fatal(err)
	}
	res, err := c.OffsetCommit(context.Background(), &kafkago.OffsetCommitRequest{GroupID: "connect-\xff", GenerationID: -1,
		Topics: map[string][]kafkago.OffsetCommit{"logs": {{Partition: 0, Offset: 0}}}})
	if err != nil || res.Topics["logs"][0].Error != nil {
		t.Fatalf("commit connect-\\xff: %v %v", err, res)
	}
	listen := freeLoopback(t)
	_, done := runInBackground(t, "metrics", "--web.listen-address", listen, "-b", addr, "--refresh", "200ms")
	url := "http://" + listen + "/metrics"
	body := scrapeFor(t, url, done,
		`koff_connector_source_partitions{connector="good",offsets_topic="connect-offsets"} 1`,
		`koff_connector_info{connector="bad\\xed\\xa0\\x80",offsets_topic="connect-offsets",own_offsets_topic="",type="source"} 1`,
		`koff_connector_info{connector="ctl\\x1b[2J",offsets_topic="connect-offsets",own_offsets_topic="",type="source"} 1`,
		`koff_connector_info{connector="\\xff",offsets_topic="",own_offsets_topic="",type="sink"} 1`,
		"koff_scrape_errors_total 0")
	for i := 0; i < 20; i++ {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), `connector="good"`) {
			t.Fatalf("scrape %d: %d\n%.300s", i, resp.StatusCode, b)
		}
		body = string(b)
		time.Sleep(50 * time.Millisecond)
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is required under CI=true")
		}
		t.Skip("promtool not installed")
	}
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(body)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
