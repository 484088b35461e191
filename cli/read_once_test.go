package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/kafka"
	"koff/model/java"
)

// koff get -o json and koff export print what the Store prints when they
// read once without it (readOnce), on random offsets topics: keys of
// several connectors in the plain form, fields in sorted and other
// orders, null partitions, numbers past 2^53, text that is not printable
// ASCII, each key written several times into its partition, tombstones
// (last or not). On half of them one thing the read leaves to the Store
// is added (a key in a second partition, a copy under another field
// order, a value or key not in the plain form or not JSON, a null key, a
// number past 2^63, a second offsets topic): it then hands every record
// it read to the Store, which prints (and reads nothing again).
func TestReadOncePrintsWhatTheStorePrints(t *testing.T) {
	b := broker(t)
	addr := b.Bootstrap()
	rng := rand.New(rand.NewPCG(7, 31))
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	took, fellBack := 0, 0
	const trials = 22
	partsOf := make([]int, trials)
	for trial := range trials {
		partsOf[trial] = 1 + rng.IntN(6)
		if trial == 1 {
			partsOf[trial] = 3 // its key written again in another partition
		}
		for _, topic := range []string{fmt.Sprintf("offsets-%d", trial), fmt.Sprintf("second-%d", trial)} {
			if err := b.CreateTopic(topic, partsOf[trial], map[string]string{"cleanup.policy": "compact"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer func() { readOnce = true }()
	for trial := range trials {
		topic, parts := fmt.Sprintf("offsets-%d", trial), partsOf[trial]
		home := func(k string) int { return java.PartitionFor([]byte(k), parts) }
		byPart := make([][][2]*string, parts)
		put := func(p int, k *string, v string) { byPart[p] = append(byPart[p], [2]*string{k, ps(v)}) }
		conns := []string{"mm2", "jdbc-src", "dbz"}[:1+rng.IntN(3)]
		var keys []string
		for i := range 20 + rng.IntN(200) {
			c := conns[rng.IntN(len(conns))]
			var part string
			switch rng.IntN(8) {
			case 0:
				part = "null"
			case 1:
				part = fmt.Sprintf(`{"table":"t%d","schema":"s"}`, i) // not sorted
			case 2:
				part = fmt.Sprintf(`{"file":"/log/%d ~"}`, i)
			case 3:
				part = fmt.Sprintf(`{"n":%d,"lsn":-9223372036854775808,"big":9007199254740993}`, i)
			case 4:
				part = fmt.Sprintf(`{"on":true,"none":null,"id":"d%d"}`, i)
			default:
				part = fmt.Sprintf(`{"cluster":"a","partition":%d,"topic":"t%d"}`, rng.IntN(50), i)
			}
			keys = append(keys, fmt.Sprintf(`[%q,%s]`, c, part))
		}
		var written []string
		times := 1 + rng.IntN(4)
		if trial%3 == 0 {
			times = 30 // partitions of thousands of records, keys read again within a fetch: indexed
		}
		for range len(keys) * times {
			k := keys[rng.IntN(len(keys))]
			written = append(written, k)
			v := fmt.Sprintf(`{"offset":%d}`, rng.Int64())
			switch rng.IntN(10) {
			case 0:
				v = "\x00"
			case 1:
				v = `{"offset":9007199254740993,"file":"x"}`
			case 2:
				v = `{}`
			}
			put(home(k), ps(k), v)
		}
		simple := trial%2 == 0
		second := false
		if !simple {
			k := written[rng.IntN(len(written))] // a key of the topic
			for strings.HasSuffix(k, ",null]") {
				k = written[rng.IntN(len(written))]
			}
			switch trial / 2 % 11 {
			case 0:
				put((home(k)+1)%parts, ps(k), `{"offset":1}`)
				if parts == 1 {
					put(0, ps(strings.Replace(k, `":`, `": `, 1)), `{"offset":1}`)
				}
			case 1:
				k = `["jdbc-src",{"schema":"s","table":"t0"}]`
				put(home(k), ps(k), `{"offset":2}`)
				k = `["jdbc-src",{"table":"t0","schema":"s"}]`
				put(home(k), ps(k), `{"offset":3}`)
			case 2:
				put(home(k), ps(k), `{"offset": 1}`)
			case 3:
				put(home(k), ps(strings.Replace(k, `",`, `", `, 1)), `{"offset":1}`)
			case 4:
				put(0, nil, `{"offset":1}`)
			case 5:
				k = `["café",{"file":"a"}]`
				put(home(k), ps(k), `{"offset":1}`)
			case 6:
				k = `["dbz",{"lsn":98765432109876543210}]`
				put(home(k), ps(k), `{"offset":1}`)
			case 7:
				k = "[\"dbz\",{\"file\":\"\u007f\u00e9\"}]"
				put(home(k), ps(k), `{"offset":1}`)
			case 8:
				put(home(k), ps(k), `{"offset":`)
			case 9:
				put(home(k), ps(k), `{"offset":98765432109876543210}`)
			case 10:
				second = true
				produceBatch(t, addr, fmt.Sprintf("second-%d", trial), home(k), at, [2]*string{ps(k), ps(`{"offset":5}`)})
			}
		}
		for p, recs := range byPart {
			for len(recs) > 0 {
				n := min(len(recs), 1+rng.IntN(400))
				produceBatch(t, addr, topic, p, at, recs[:n]...)
				recs = recs[n:]
			}
		}
		topics := []string{"--offsets-topic", topic}
		if second || trial == 2 {
			topics = append(topics, "--offsets-topic", fmt.Sprintf("second-%d", trial)) // empty in trial 2
		}
		cmds := [][]string{{"get", "-o", "json"}, {"export"}, {"get", "mm2", "-o", "json"}, {"get", "mm2", "dbz", "mm2", "-o", "json"},
			{"export", "jdbc-src"}, {"get", "no-such", "-o", "json"}}
		for ci, cmd := range cmds {
			args := append(append(cmd, topics...), "-b", addr)
			readOnce = false
			want, wantErr, wantCode := koff(t, args...)
			readOnce = true
			got, gotErr, gotCode := koff(t, args...)
			if got != want || gotErr != wantErr || gotCode != wantCode {
				t.Errorf("trial %d %v: read once (exit %d):\n%s%s\nStore (exit %d):\n%s%s", trial, cmd, gotCode, got, gotErr, wantCode, want, wantErr)
			}
			why := *readOnceGaveUp.Load()
			if (why == "" || why == "no connector no-such" || strings.HasPrefix(why, "no connector")) != simple {
				t.Errorf("trial %d %v (simple %v): the read printed itself: %v (%s)", trial, cmd, simple, why == "", why)
			}
			if ci < 2 && len(want) < 100 {
				t.Errorf("trial %d %v printed little: %q", trial, cmd, want)
			}
			if ci == len(cmds)-1 && (wantCode == 0 || why != "no connector no-such" && simple) {
				t.Errorf("trial %d %v: exit %d, given up for %q", trial, cmd, wantCode, why)
			}
			if why == "" {
				took++
			} else {
				fellBack++
			}
		}
	}
	t.Logf("the read printed %d, left %d to the Store", took, fellBack)
}

// What koff knows of connectors besides the offsets topic goes with a read
// once as with the Store: a sink known by its group is printed beside the
// sources the read holds (from the Store), a connector with its own
// offsets.storage.topic (config topic) or a source whose name a sink's
// group takes make the Store print; against the demo cluster, with and
// without Connect's REST API, koff get -o json and export print the same
// either way.
func TestReadOnceKeepsWhatTheStoreKnowsOtherwise(t *testing.T) {
	defer func() { readOnce = true }()
	same := func(name string, wantWhy string, args ...string) {
		t.Helper()
		for _, cmd := range [][]string{{"get", "-o", "json"}, {"export"}} {
			args := append(cmd, args...)
			readOnce = false
			want, wantErr, wantCode := koff(t, args...)
			readOnce = true
			got, gotErr, gotCode := koff(t, args...)
			if got != want || gotErr != wantErr || gotCode != wantCode {
				t.Errorf("%s %v: read once (exit %d):\n%s%s\nStore (exit %d):\n%s%s", name, cmd, gotCode, got, gotErr, wantCode, want, wantErr)
			}
			if why := *readOnceGaveUp.Load(); !strings.Contains(why, wantWhy) || (wantWhy == "") != (why == "") {
				t.Errorf("%s %v: given up for %q, want %q", name, cmd, why, wantWhy)
			}
			if wantCode != 0 || len(want) < 50 {
				t.Errorf("%s %v: exit %d %s%s", name, cmd, wantCode, want, wantErr)
			}
		}
	}
	addr := offsetsBroker(t)
	produceConnect(t, addr,
		[2]string{`["src-a",{"server":"db"}]`, `{"lsn":1}`},
		[2]string{`["src-b",{"file":"f"}]`, `{"position":2}`},
		[2]string{`["src-b",{"file":"g"}]`, `{"position":3}`},
		[2]string{`["mm-0",{"file":"g"}]`, `{"position":3}`}, // look-alikes, each plain
		[2]string{`["mm-O",{"file":"g"}]`, `{"position":3}`})
	if _, errs, _ := koff(t, "get", "-o", "json", "-b", addr); !strings.Contains(errs, `koff: warning: connector names that look alike: "mm-0" and "mm-O"`) {
		t.Errorf("no look-alike warning: %s", errs)
	}
	c := kafka.Config{Brokers: []string{addr}}.Client()
	if _, err := c.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: "logs", NumPartitions: 2, ReplicationFactor: 1}}}); err != nil {
		t.Fatal(err)
	}
	commit := func(group string) {
		res, err := c.OffsetCommit(context.Background(), &kafkago.OffsetCommitRequest{GroupID: group, GenerationID: -1,
			Topics: map[string][]kafkago.OffsetCommit{"logs": {{Partition: 0, Offset: 0}, {Partition: 1, Offset: 0}}}})
		if err != nil || res.Topics["logs"][0].Error != nil {
			t.Fatalf("commit %s: %v %v", group, err, res)
		}
	}
	commit("connect-sinky")
	same("a sink beside", "", "-b", addr)
	same("a sink and a source named", "", "sinky", "src-a", "-b", addr)
	commit("connect-src-b")
	same("a sink's group named like a source", "connector src-b is known otherwise, as a sink", "-b", addr)

	same("an own offsets topic with records", "several offsets topics", "-b", configCluster(t, "STOPPED"))
	// files' own topic holds nothing yet: its tasks read nothing, not
	// what the shared topic holds of it.
	b := broker(t)
	for name, n := range map[string]int{"connect-offsets": 25, "files-offsets": 25, "connect-configs": 1} {
		if err := b.CreateTopic(name, n, map[string]string{"cleanup.policy": "compact"}); err != nil {
			t.Fatal(err)
		}
	}
	produceTo(t, b.Bootstrap(), "connect-configs", 0,
		[2]string{"connector-files", `{"properties":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/tmp/in.txt","topic":"lines","offsets.storage.topic":"files-offsets","name":"files"}}`},
		[2]string{"target-state-files", `{"state":"STOPPED","state.v2":"STOPPED"}`})
	produceTo(t, b.Bootstrap(), "connect-offsets", -1, [2]string{`["files",{"filename":"/tmp/in.txt"}]`, `{"position":10}`}, [2]string{`["other",{"filename":"/tmp/in.txt"}]`, `{"position":10}`})
	same("an own offsets topic", "connector files has its own offsets topic (config topic)", "-b", b.Bootstrap())

	// Connect's REST API (the demo's) lists jdbc-shop, a source the
	// offsets topic holds, sources it does not (printed with no offsets
	// by get, left out by export) and sinks whose groups have no offsets.
	d := demoCluster(t)
	produceConnect(t, addr, [2]string{`["jdbc-shop",{"protocol":"1","table":"shop.public.orders"}]`, `{"incrementing":7}`})
	rest := []string{"-b", addr, "--connect-url", d.ConnectURL()}
	same("REST", "connector src-b is known otherwise", rest...)
	if out, _, _ := koff(t, append([]string{"get", "-o", "json"}, rest...)...); !strings.Contains(out, `"jdbc-shop":{"offsets":[{"partition":{"protocol":"1","table":"shop.public.orders"},"offset":{"incrementing":7}}]}`) || !strings.Contains(out, `"jdbc-crm":{"offsets":[]}`) {
		t.Errorf("get -o json with REST:\n%s", out)
	}
	addr = offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["jdbc-shop",{"protocol":"1","table":"shop.public.orders"}]`, `{"incrementing":7}`})
	same("REST", "", "-b", addr, "--connect-url", d.ConnectURL())
	// jdbc-crm has its own offsets.storage.topic (REST says so), which
	// this broker does not have: its tasks read nothing, not this.
	produceConnect(t, addr, [2]string{`["jdbc-crm",{"protocol":"1","table":"crm.public.deals"}]`, `{"incrementing":7}`})
	same("REST own topic", "connector jdbc-crm has its own offsets topic (REST)", "-b", addr, "--connect-url", d.ConnectURL())
}

// A read that gives up after it kept records of several fetches hands the
// Store copies of their values: the fetches read after it go into memory
// the reader reads into again, and what the Store prints is what it
// prints having read every record. Each topic has two partitions of
// 30,000 records (3.4 MB: four fetches of 0.9 MB, each bigger than the
// one before, and a last one of 0.27 MB read into the fourth's memory): a
// value not in the plain form in the first fetch of one, in the fourth of
// another, in the last record of a third; the other partition gives up
// when it learns of it, or once read.
func TestReadOnceHandsOverAcrossFetches(t *testing.T) {
	b := broker(t)
	addr := b.Bootstrap()
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	defer func() { readOnce = true }()
	bads := []int{50, 25_000, 29_999}
	for _, bad := range bads {
		if err := b.CreateTopic(fmt.Sprintf("offsets-%d", bad), 2, map[string]string{"cleanup.policy": "compact"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range bads {
		topic := fmt.Sprintf("offsets-%d", bad)
		for p := range 2 {
			var recs [][2]*string
			for i := range 30_000 {
				k := fmt.Sprintf(`["mm2-%d.MirrorSourceConnector",{"cluster":"primary","partition":%d,"topic":"orders.region-%d.topic-%d"}]`, i%7, p, i%70, i)
				v := fmt.Sprintf(`{"offset":%d}`, i*7+p)
				if p == 0 && i == bad {
					v = `{"offset": 1}`
				}
				recs = append(recs, [2]*string{ps(k), ps(v)})
			}
			for len(recs) > 0 {
				n := min(len(recs), 1000)
				produceBatch(t, addr, topic, p, at, recs[:n]...)
				recs = recs[n:]
			}
		}
		args := []string{"get", "-o", "json", "--offsets-topic", topic, "-b", addr}
		readOnce = false
		want, wantErr, wantCode := koff(t, args...)
		readOnce = true
		got, gotErr, gotCode := koff(t, args...)
		if got != want || gotErr != wantErr || gotCode != wantCode {
			t.Errorf("bad value at %d: read once (exit %d, %d bytes) and the Store (exit %d, %d bytes) differ: %s %s", bad, gotCode, len(got), wantCode, len(want), gotErr, wantErr)
		}
		if why := *readOnceGaveUp.Load(); why != "a value not in the plain form" {
			t.Errorf("bad value at %d: given up for %q", bad, why)
		}
		badRow := fmt.Sprintf(`"partition":0,"topic":"orders.region-%d.topic-%d"},"offset":{"offset":1}}`, bad%70, bad)
		if !strings.Contains(want, `"partition":1,"topic":"orders.region-39.topic-29999"},"offset":{"offset":209994}}`) || !strings.Contains(want, badRow) {
			t.Errorf("bad value at %d: %d bytes printed, without the last partition or %s", bad, len(want), badRow)
		}
	}
}
