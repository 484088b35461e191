package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"koff/demo"
)

func TestStatusReportsStalledSourcesAndSinkLag(t *testing.T) {
	c, err := demo.Start(context.Background(), demo.Options{FlushInterval: 200 * time.Millisecond, StallAfter: time.Second, ConnectListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	time.Sleep(3 * time.Second) // jdbc-legacy stops flushing after 1s
	flags := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}

	// The operator knows the workers' offset.flush.interval.ms.
	out, errs, code := koff(t, append([]string{"status", "--flush-interval", "200ms"}, flags...)...)
	if code != ExitFailed || !strings.HasPrefix(errs, "koff: stalled: jdbc-legacy") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, want := range []string{"jdbc-legacy ", "STALLED", "records written since its last flush", "jdbc-shop ", "OK", "jdbc-old-orders", "orphaned", "connect-offsets-crm", "SINK", "es-search", "s3-archive"} {
		if !strings.Contains(out, want) {
			t.Errorf("status table lacks %q:\n%s", want, out)
		}
	}

	out, _, code = koff(t, append([]string{"status", "-o", "json", "es-search", "jdbc-shop", "jdbc-legacy", "--flush-interval", "200ms"}, flags...)...)
	if code != ExitFailed {
		t.Errorf("json status exit %d, want 1 (jdbc-legacy is stalled)", code)
	}
	var st struct {
		Connectors []statusJSON `json:"connectors"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	byName := map[string]statusJSON{}
	for _, s := range st.Connectors {
		byName[s.Name] = s
	}
	es := byName["es-search"].Sink
	if es == nil || es.Group == "" || len(es.Partitions) == 0 {
		t.Fatalf("es-search = %+v", byName["es-search"])
	}
	var sum int64
	for _, p := range es.Partitions {
		if p.Lag != p.End-p.Committed {
			t.Errorf("%s/%d lag %d != end %d - committed %d", p.Topic, p.Partition, p.Lag, p.End, p.Committed)
		}
		sum += p.Lag
	}
	if sum != es.TotalLag || es.TotalLag <= 0 {
		t.Errorf("total lag %d, partitions sum to %d", es.TotalLag, sum)
	}
	if f := byName["jdbc-shop"].Flush; f == nil || f.Status != "ok" || f.IntervalSource != "configured" {
		t.Errorf("jdbc-shop flush = %+v", f)
	}
	if f := byName["jdbc-legacy"].Flush; f == nil || f.Status != "stalled" {
		t.Errorf("jdbc-legacy flush = %+v", f)
	}
	// Without --flush-interval it is estimated from the flushes seen.
	out, _, _ = koff(t, append([]string{"status", "-o", "json", "jdbc-shop"}, flags...)...)
	if !strings.Contains(out, `"interval_source":"estimated"`) {
		t.Errorf("interval not estimated:\n%s", out)
	}
}
