package cli

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// deleteAllRecords moves the log start of every partition of topic to its
// end (Kafka's DeleteRecords, as kafka-delete-records does): its records
// are gone as after compaction removed their tombstones.
func deleteAllRecords(t *testing.T, addr, topic string, partitions int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.TimeoutMillis = 10000
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	for p := range partitions {
		rp := kmsg.NewDeleteRecordsRequestTopicPartition()
		rp.Partition, rp.Offset = int32(p), -1 // -1: the high watermark
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	shards := cl.RequestSharded(ctx, req)
	for _, s := range shards {
		if s.Err != nil {
			t.Fatal(s.Err)
		}
		for _, rt := range s.Resp.(*kmsg.DeleteRecordsResponse).Topics {
			for _, rp := range rt.Partitions {
				if rp.ErrorCode != 0 {
					t.Fatalf("delete records %s/%d: error %d", topic, rp.Partition, rp.ErrorCode)
				}
			}
		}
	}
}

// A connector Connect lists with no offsets anywhere (stopped, its
// records gone) gets what Connect's GET answers: {"offsets":[]}, exit 0,
// in every form of get. A name nobody knows still fails, with the names
// it may have meant.
func TestGetConnectorWithoutOffsetsIsAnEmptyBody(t *testing.T) {
	c := demoCluster(t)
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if _, errs, code := koff(t, append([]string{"stop", "jdbc-shop"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	deleteAllRecords(t, c.Bootstrap(), "connect-offsets", 25)
	res, err := http.Get(c.ConnectURL() + "/connectors/jdbc-shop/offsets")
	if err != nil {
		t.Fatal(err)
	}
	connects, _ := io.ReadAll(res.Body)
	res.Body.Close()

	out, errs, code := koff(t, append([]string{"get", "jdbc-shop", "-o", "json"}, rest...)...)
	if code != 0 || out != `{"offsets":[]}`+"\n" || strings.TrimSpace(string(connects)) != strings.TrimSpace(out) {
		t.Errorf("get jdbc-shop -o json: exit %d %q %q; Connect's GET: %d %s", code, out, errs, res.StatusCode, connects)
	}
	out, errs, code = koff(t, append([]string{"get", "-o", "json"}, rest...)...)
	if code != 0 || !strings.Contains(out, `"jdbc-shop":{"offsets":[]}`) {
		t.Errorf("get -o json: exit %d %q\n%s", code, errs, out)
	}
	out, errs, code = koff(t, append([]string{"get", "jdbc-shop"}, rest...)...)
	if code != 0 || !strings.Contains(out, `jdbc-shop: no offsets`) {
		t.Errorf("get jdbc-shop: exit %d %q\n%s", code, errs, out)
	}
	_, errs, code = koff(t, append([]string{"get", "jdbc-shopp", "-o", "json"}, rest...)...)
	if code != ExitFailed || !strings.Contains(errs, "did you mean jdbc-shop") {
		t.Errorf("get jdbc-shopp: exit %d %q", code, errs)
	}
}

// A connector whose every offset was deleted prints no row, and says so.
func TestGetConnectorWithEveryOffsetDeletedSaysSo(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["gone",{"f":1}]`, `{"o":1}`}, [2]string{`["gone",{"f":1}]`, ""})
	out, errs, code := koff(t, "get", "gone", "-b", addr)
	if code != 0 || !strings.Contains(out, "gone: no offsets") {
		t.Errorf("get gone: exit %d %q\n%s", code, errs, out)
	}
	if out, _, _ := koff(t, "get", "gone", "-b", addr, "-o", "json"); out != `{"offsets":[]}`+"\n" {
		t.Errorf("get gone -o json: %q", out)
	}
}
