package cli

import (
	"context"
	"fmt"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model/java"
)

// produceBatch writes records to one partition of topic in one produce
// request (one record batch, so one fetch holds them all), at the given
// times; a value "\x00" is a tombstone, a nil key a null key.
func produceBatch(t *testing.T, addr, topic string, partition int, at time.Time, recs ...[2]*string) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 10 * time.Second}
	var rs []kafkago.Record
	for i, r := range recs {
		rec := kafkago.Record{Time: at.Add(time.Duration(i) * time.Millisecond)}
		if r[0] != nil {
			rec.Key = kafkago.NewBytes([]byte(*r[0]))
		}
		if r[1] != nil && *r[1] != "\x00" {
			rec.Value = kafkago.NewBytes([]byte(*r[1]))
		}
		rs = append(rs, rec)
	}
	res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{
		Topic: topic, Partition: partition, RequiredAcks: kafkago.RequireAll, Records: kafkago.NewRecordReader(rs...),
	})
	if err == nil {
		err = res.Error
	}
	if err != nil {
		t.Fatalf("produce to %s/%d: %v", topic, partition, err)
	}
}

func ps(s string) *string { return &s }

// koff get reads the topics into a one-shot Store, fed only the latest
// record of each key bytes of a fetch (store.Latest): everything it prints
// is what the full Store, fed every record, prints. The topics hold what
// the model and cli tests hold: copies of one partition in two partitions
// and in two offsets topics, both field orders of a partition (told apart
// by a flush with another partition, superseded in the same fetch),
// tombstones, values that are null, empty, invalid JSON, nested or too
// big for Java, keys that are garbage, null, empty or not in the task's
// form, leading zeros and numbers past 2^63, each written several times
// within one record batch.
func TestGetOneShotPrintsWhatTheFullStorePrints(t *testing.T) {
	b := broker(t)
	for _, topic := range []string{"connect-offsets", "other-offsets"} {
		if err := b.CreateTopic(topic, 25, map[string]string{"cleanup.policy": "compact"}); err != nil {
			t.Fatal(err)
		}
	}
	addr := b.Bootstrap()
	home := func(k string) int { return java.PartitionFor([]byte(k), 25) }
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	sec := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	const (
		file    = `["file-src",{"filename":"/var/log/app.log"}]`
		spaced  = `["file-src", {"filename": "/var/log/app.log"}]`
		other   = `["file-src",{"filename":"/var/log/other.log"}]`
		ordBA   = `["jdbc",{"table":"t","schema":"s"}]` // not the HashMap order
		ordAB   = `["jdbc",{"schema":"s","table":"t"}]`
		jdbcOne = `["jdbc",{"table":"one"}]`
		big     = `["dbz",{"server":"db1"}]`
		zeros   = `["dbz",{"n":007}]`
		null    = `["dbz",null]`
		nested  = `["dbz",{"a":{"b":1}}]`
	)
	// A flush of jdbc's task: ordBA with another partition, then ordBA
	// alone, both in one batch; later ordAB alone (what REST writes).
	produceBatch(t, addr, "connect-offsets", home(jdbcOne), sec(0), [2]*string{ps(jdbcOne), ps(`{"id":1}`)})
	produceBatch(t, addr, "connect-offsets", home(ordBA), sec(0),
		[2]*string{ps(ordBA), ps(`{"id":1}`)}, [2]*string{ps(ordBA), ps(`{"id":2}`)}, [2]*string{ps(ordBA), ps(`{"id":3}`)})
	produceBatch(t, addr, "connect-offsets", home(ordBA), sec(20), [2]*string{ps(ordBA), ps(`{"id":4}`)})
	produceBatch(t, addr, "connect-offsets", home(ordAB), sec(40), [2]*string{ps(ordAB), ps(`{"id":9}`)}, [2]*string{ps(ordAB), ps(`{"id":10}`)})
	// file-src: the task's key in its partition, superseded many times, a
	// tombstone in between; a spaced copy; the same bytes in another
	// partition (a hand-written copy); another file deleted at the end.
	var fileRecs [][2]*string
	for i := range 30 {
		v := fmt.Sprintf(`{"position":%d}`, i)
		switch i {
		case 7:
			v = "\x00"
		case 11:
			v = `{"position":`
		}
		fileRecs = append(fileRecs, [2]*string{ps(file), ps(v)}, [2]*string{ps(other), ps(v)})
	}
	fileRecs = append(fileRecs, [2]*string{ps(other), ps("\x00")})
	produceBatch(t, addr, "connect-offsets", home(file), sec(60), fileRecs...)
	produceBatch(t, addr, "connect-offsets", (home(file)+1)%25, sec(70), [2]*string{ps(file), ps(`{"position":1}`)}, [2]*string{ps(file), ps(`{"position":99}`)})
	produceBatch(t, addr, "connect-offsets", home(spaced), sec(80), [2]*string{ps(spaced), ps(`{"position":5}`)}, [2]*string{ps(spaced), ps(`{"position":6}`)})
	// dbz: big numbers, leading zeros, a null partition, nested, and
	// values that give no offset, each superseded and superseding.
	produceBatch(t, addr, "connect-offsets", home(big), sec(100),
		[2]*string{ps(big), ps(`{"lsn":98765432109876543210}`)}, [2]*string{ps(big), ps(`garbage`)},
		[2]*string{ps(big), ps(`{"lsn":12345678901234567890123,"f":1e400}`)},
		[2]*string{ps(zeros), ps(`{"x":-0.0}`)}, [2]*string{ps(zeros), ps(``)}, [2]*string{ps(zeros), ps(`null`)},
		[2]*string{ps(null), ps(`{"x":1}`)}, [2]*string{ps(null), ps(`[1]`)},
		[2]*string{ps(nested), ps(`{"x":1}`)}, [2]*string{ps(nested), ps(`{"x":{"y":1}}`)})
	// Garbage keys, a null key and an empty one, superseded in their batch.
	produceBatch(t, addr, "connect-offsets", 3, sec(120),
		[2]*string{ps(`not json`), ps(`{"x":1}`)}, [2]*string{ps(`not json`), ps(`{"x":2}`)},
		[2]*string{nil, ps(`{"x":1}`)}, [2]*string{nil, ps(`{"x":2}`)}, [2]*string{ps(``), ps(`{"x":3}`)},
		[2]*string{ps(`["file-src"]`), ps(`{"x":1}`)}, [2]*string{ps(`["file-src",{"filename":"/var/log/app.log"}] trailing`), ps(`{"position":3}`)})
	// The same connector in a second offsets topic.
	produceBatch(t, addr, "other-offsets", home(file), sec(140), [2]*string{ps(file), ps(`{"position":500}`)}, [2]*string{ps(file), ps(`{"position":501}`)}, [2]*string{ps(other), ps(`{"position":7}`)})

	runs := [][]string{
		{"get", "-o", "json"},
		{"get"},
		{"get", "--deleted"},
		{"get", "file-src", "-o", "json"},
		{"get", "file-src", "jdbc", "-o", "json"},
		{"get", "jdbc"},
		{"get", "dbz", "--deleted"},
		{"get", "no-such-connector"},
		{"get", "-o", "json", "--offsets-topic", "other-offsets", "--offsets-topic", "connect-offsets"},
		{"get", "--offsets-topic", "other-offsets", "--offsets-topic", "connect-offsets", "--deleted"},
	}
	defer func() { getOneShot = true }()
	for _, args := range runs {
		args = append(args, "-b", addr)
		getOneShot = false
		wantOut, wantErr, wantCode := koff(t, args...)
		getOneShot = true
		out, errs, code := koff(t, args...)
		if out != wantOut || errs != wantErr || code != wantCode {
			t.Errorf("koff %v:\none-shot (exit %d):\n%s%s\nfull Store (exit %d):\n%s%s", args, code, out, errs, wantCode, wantOut, wantErr)
		}
		if testing.Verbose() {
			t.Logf("koff %v (exit %d):\n%s%s", args, code, out, errs)
		}
		if len(wantOut) < 50 && wantCode == 0 {
			t.Errorf("koff %v printed little: %q", args, wantOut)
		}
	}
}
