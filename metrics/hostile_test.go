package metrics

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	koffmodel "koff/model"
	"koff/model/java"
	"koff/model/store"
)

// hostileStore is the demo-sized store of fillStore with connectors and a
// sink group whose names are not valid UTF-8, or hold controls, quotes
// and a megabyte.
func hostileStore(tb testing.TB, names ...[]byte) *store.Store {
	tb.Helper()
	now := time.Now()
	s := fillStore(tb, 20, 2, 0, now)
	var batch []store.Record
	for i, name := range names {
		k := append(append([]byte(`["`), name...), `",{"p":1}]`...)
		batch = append(batch, store.Record{Topic: "connect-offsets", Partition: java.PartitionFor(k, 25), Offset: int64(1000 + i),
			Key: k, Value: []byte(`{"o":1}`), Time: now})
	}
	s.Ingest(batch)
	var polls []koffmodel.GroupPoll
	for _, name := range names {
		polls = append(polls, koffmodel.GroupPoll{Group: "connect-" + string(name), State: "Stable", Members: 1,
			Partitions: []koffmodel.GroupPartition{{TopicPartition: koffmodel.TopicPartition{Topic: string(name), Partition: 0}, Committed: 1, End: 2}}})
	}
	s.SetGroups(now, polls)
	return s
}

var hostileNames = [][]byte{
	[]byte("bad-\xff-name"),
	[]byte(`surrogate-\ud800`),
	[]byte("ctl-\x1b[31m-\n-\"quoted\"-\\"),
	[]byte("\xc3"), // a cut UTF-8 sequence
	bytes.Repeat([]byte("x"), 1<<20),
	[]byte("bidi-\u202e-zw\u200b"),
}

// Names that are not valid UTF-8 never take the endpoint down: every
// scrape answers 200, parses, keeps every good connector's series, and
// shows each hostile name escaped as koff shows it elsewhere.
func TestHostileNamesKeepEveryScrapeWhole(t *testing.T) {
	s := hostileStore(t, hostileNames...)
	body := scrape(t, New(Options{Store: s, SinkPartitionLimit: 1000, ConnectorLimit: 1000}))
	families := parse(t, body)
	// A key's \ud800 is kept as its bytes (not UTF-8); a group's name
	// makes a sink of the same name.
	for _, want := range []string{
		`koff_connector_info{connector="debezium-00",offsets_topic="connect-offsets",own_offsets_topic="",type="source"} 1`,
		`koff_connector_info{connector="surrogate-\\xed\\xa0\\x80",offsets_topic="connect-offsets",own_offsets_topic="",type="source"} 1`,
		`koff_connector_info{connector="bad-\\xff-name",offsets_topic="",own_offsets_topic="",type="sink"} 1`,
		`koff_connector_info{connector="\\xc3",offsets_topic="",own_offsets_topic="",type="sink"} 1`,
		`koff_sink_lag_records{connector="bad-\\xff-name",group="connect-bad-\\xff-name"} 1`,
		`koff_sink_partition_lag_records{connector="bad-\\xff-name",group="connect-bad-\\xff-name",partition="0",topic="bad-\\xff-name"} 1`,
		`koff_connector_info{connector="ctl-\\x1b[31m-\\n-\"quoted\"-\\",offsets_topic="",own_offsets_topic="",type="sink"} 1`,
		`koff_connector_flush_status{connector="debezium-01",offsets_topic="connect-offsets",status="ok"} 1`,
		`koff_scrape_errors_total 0`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s in:\n%s", want, grep(body, "koff_connector_info"))
		}
	}
	if n := len(families["koff_connector_info"].GetMetric()); n != 2+3+len(hostileNames) {
		t.Errorf("%d koff_connector_info series, want %d (2 good, 3 hostile sources, %d sinks)", n, 2+3+len(hostileNames), len(hostileNames))
	}
	for _, l := range strings.Split(body, "\n") {
		if len(l) > 4*labelMax+200 {
			t.Errorf("a %d-byte line: a long name is not clipped", len(l))
		}
	}
	promtoolCheck(t, body)
}

// FuzzCollectorNames: whatever the bytes of a connector's name, a group's
// and a topic's, the scrape answers 200 and is valid exposition.
func FuzzCollectorNames(f *testing.F) {
	for _, n := range hostileNames {
		if len(n) < 1000 {
			f.Add(n)
		}
	}
	f.Fuzz(func(t *testing.T, name []byte) {
		if bytes.IndexByte(name, '"') >= 0 || bytes.IndexByte(name, '\\') >= 0 {
			// A key koff cannot parse as JSON is unparseable, no connector:
			// escape what JSON needs and keep the rest.
			name = bytes.ReplaceAll(bytes.ReplaceAll(name, []byte(`\`), []byte(`\\`)), []byte(`"`), []byte(`\"`))
		}
		body := scrape(t, New(Options{Store: hostileStore(t, name), SinkPartitionLimit: 10, ConnectorLimit: 10}))
		parse(t, body)
		if !strings.Contains(body, "\nkoff_scrape_errors_total 0\n") {
			t.Fatalf("series left out:\n%s", grep(body, "koff_scrape"))
		}
	})
}

func parse(tb testing.TB, body string) map[string]*dto.MetricFamily {
	tb.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		tb.Fatalf("the exposition does not parse: %v", err)
	}
	out := map[string]*dto.MetricFamily{}
	for name, f := range fams {
		if !model.LegacyValidation.IsValidMetricName(name) {
			tb.Errorf("metric name %q", name)
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if !model.LabelValue(l.GetValue()).IsValid() {
					tb.Errorf("%s: label %s=%q is not valid", name, l.GetName(), l.GetValue())
				}
			}
		}
		out[name] = f
	}
	return out
}

// promtoolCheck runs promtool check metrics on a scrape, when promtool is
// there (always under CI=true).
func promtoolCheck(t *testing.T, body string) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if ci() {
			t.Fatal("promtool is not installed (CI=true)")
		}
		t.Log("promtool not installed: not run")
		return
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func ci() bool { return os.Getenv("CI") == "true" }

// panicky is a Store one of whose reads panics.
type panicky struct {
	Store
	connectors, sinks bool
}

func (p panicky) Connectors() []koffmodel.ConnectorRow {
	if p.connectors {
		panic("a bug reading connectors")
	}
	return p.Store.Connectors()
}

func (p panicky) SinkPartitions(group string) []koffmodel.SinkPartitionRow {
	if p.sinks {
		panic("a bug reading " + group)
	}
	return p.Store.SinkPartitions(group)
}

// A bug reading one part of the Store costs that part's series, not the
// scrape: 200, the rest there, the error counted and logged, and nothing
// of koff's internals (a stack, a source path) in the answer.
func TestABugCostsItsOwnSeriesOnly(t *testing.T) {
	s := fillStore(t, 20, 2, 4, time.Now())
	for _, tc := range []struct {
		name  string
		store panicky
		kept  string
	}{
		{"connectors", panicky{Store: s, connectors: true}, "\nkoff_tailer_blind 0\n"},
		{"sink partitions", panicky{Store: s, sinks: true}, `koff_connector_info{connector="debezium-00"`},
	} {
		var logged []string
		body := scrape(t, New(Options{Store: tc.store, SinkPartitionLimit: 100, Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }}))
		if !strings.Contains(body, tc.kept) || !strings.Contains(body, "\nkoff_scrape_errors_total 1\n") {
			t.Errorf("%s: want %q and one error counted:\n%s", tc.name, tc.kept, grep(body, "koff_"))
		}
		if strings.Contains(body, "goroutine ") || strings.Contains(body, ".go:") || strings.Contains(body, "a bug") {
			t.Errorf("%s: internals in the answer", tc.name)
		}
		if len(logged) != 1 || !strings.Contains(logged[0], "a bug reading") {
			t.Errorf("%s: logged %q", tc.name, logged)
		}
	}
}
