package cli

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"koff/model/java"
)

// The one-shot prototype (KOFF_ONESHOT_PROTO) prints what the Store
// prints for koff get -o json, on random offsets topics: keys of several
// connectors in the plain form, fields in sorted and other orders, null
// partitions, big numbers, text that is not printable ASCII, each key
// written several times into its partition, tombstones (last or not). On
// half of them one thing the prototype leaves to the Store is added (a
// key in a second partition, a copy under another field order, a value or
// key not in the plain form, a null key): it must then print nothing
// itself and leave the reading to the Store, which prints the same.
func TestGetProtoPrintsWhatTheStorePrints(t *testing.T) {
	b := broker(t)
	addr := b.Bootstrap()
	rng := rand.New(rand.NewPCG(7, 31))
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	took, fellBack := 0, 0
	const trials = 16
	partsOf := make([]int, trials)
	for trial := range trials {
		partsOf[trial] = 1 + rng.IntN(6)
		if trial == 1 {
			partsOf[trial] = 3 // its key written again in another partition
		}
		if err := b.CreateTopic(fmt.Sprintf("offsets-%d", trial), partsOf[trial], map[string]string{"cleanup.policy": "compact"}); err != nil {
			t.Fatal(err)
		}
	}
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
			switch rng.IntN(7) {
			case 0:
				part = "null"
			case 1:
				part = fmt.Sprintf(`{"table":"t%d","schema":"s"}`, i) // not sorted
			case 2:
				part = fmt.Sprintf(`{"file":"/log/%d ~"}`, i)
			case 3:
				part = fmt.Sprintf(`{"n":%d,"lsn":-9223372036854775808}`, i)
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
			if rng.IntN(8) == 0 {
				v = "\x00"
			}
			put(home(k), ps(k), v)
		}
		simple := trial%2 == 0
		if !simple {
			k := written[rng.IntN(len(written))] // a key of the topic
			for strings.HasSuffix(k, ",null]") {
				k = written[rng.IntN(len(written))]
			}
			switch trial / 2 % 8 {
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
			}
		}
		for p, recs := range byPart {
			for len(recs) > 0 {
				n := min(len(recs), 1+rng.IntN(400))
				produceBatch(t, addr, topic, p, at, recs[:n]...)
				recs = recs[n:]
			}
		}
		args := []string{"get", "-o", "json", "--offsets-topic", topic, "-b", addr}
		want, wantErr, wantCode := koff(t, args...)
		got, gotErr, gotCode := koffEnv(t, map[string]string{"KOFF_ONESHOT_PROTO": "1"}, args...)
		if got != want || gotErr != wantErr || gotCode != wantCode {
			t.Errorf("trial %d: prototype (exit %d):\n%s%s\nStore (exit %d):\n%s%s", trial, gotCode, got, gotErr, wantCode, want, wantErr)
		}
		if protoTook != simple {
			t.Errorf("trial %d (simple %v): the prototype printed: %v", trial, simple, protoTook)
		}
		if len(want) < 100 {
			t.Errorf("trial %d printed little: %q", trial, want)
		}
		if protoTook {
			took++
		} else {
			fellBack++
		}
	}
	t.Logf("prototype printed %d, left %d to the Store", took, fellBack)
}
