package edit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// Export, then reset, then import restores exactly what the task read,
// for random sequences of writes (key variants, tombstones, nulls,
// garbage, lenient numbers, copies in other partitions) on a real broker.
// What the task reads is decided before and after by a small model of
// Apache Kafka 4.1.1 over every record in the topic
// (KafkaOffsetBackingStore.consumedCallback: the last record of each raw
// key wins, across partitions, a null removes it;
// OffsetStorageReaderImpl.offsets: the task looks up the bytes of its own
// map), not by koff's Store.
func TestExportResetImportRestoresWhatTheTaskRead(t *testing.T) {
	type variant struct{ raw, java string } // java "" for no offset
	taskKeys := []string{`["c",{"f":"x"}]`, `["c",{"n":7}]`}
	otherKeys := []string{`["c", {"f": "x"}]`, `["c",{"f":"\u0078"}]`, `["c",{"n":007}]`, `["c",{"n":7} ]`}
	values := func(n int) []variant {
		return []variant{
			{fmt.Sprintf(`{"pos":%d}`, n), fmt.Sprintf(`{"pos":%d}`, n)},
			{fmt.Sprintf(`{ "pos" : %d }`, n), fmt.Sprintf(`{"pos":%d}`, n)},
			{fmt.Sprintf(`{"pos":00%d}`, n), fmt.Sprintf(`{"pos":%d}`, n)},
			{fmt.Sprintf(`{"pos":%d} trailing`, n), fmt.Sprintf(`{"pos":%d}`, n)},
			{fmt.Sprintf(`{"pos":%d.5,"big":18446744073709551621,"s":"a\u0062"}`, n), fmt.Sprintf(`{"pos":%d.5,"big":5,"s":"ab"}`, n)},
			{"", ""}, // tombstone (harness.write: "" is a null value)
			{"null", ""},
			{"garbage", ""},
			{"[1]", ""},
		}
	}
	reads := func(h *harness, known map[string]string) map[string]string {
		t.Helper()
		var all []store.Record
		for p := 0; p < 25; p++ {
			recs, _, err := h.kafka.ReadRecords(context.Background(), model.TopicPartition{Topic: "connect-offsets", Partition: p}, 0)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, recs...)
		}
		// A restarted worker reads partition by partition, in the order
		// model.ReadAfter gives (checked against the real worker in interop).
		with := map[int]bool{}
		for _, r := range all {
			with[r.Partition] = true
		}
		sort.SliceStable(all, func(i, j int) bool {
			a, b := all[i].Partition, all[j].Partition
			return a != b && model.ReadAfter("connect-offsets", b, a, 25, len(with))
		})
		data := map[string][]byte{}
		for _, r := range all {
			if r.Value == nil {
				delete(data, string(r.Key))
				continue
			}
			data[string(r.Key)] = r.Value
		}
		out := map[string]string{}
		for _, k := range taskKeys {
			v, ok := data[k]
			if !ok {
				continue
			}
			if j, orig := known[string(v)]; orig {
				out[k] = j
			} else {
				out[k] = string(v) // written by koff: compact, strict JSON
			}
		}
		return out
	}
	r := rand.New(rand.NewPCG(3, 1))
	for seq := 0; seq < 12; seq++ {
		t.Run(fmt.Sprint(seq), func(t *testing.T) {
			h := newHarness(t)
			known := map[string]string{}
			n := 2 + r.IntN(8)
			for i := 0; i < n; i++ {
				var key string
				if r.IntN(2) == 0 {
					key = taskKeys[r.IntN(len(taskKeys))]
				} else {
					key = otherKeys[r.IntN(len(otherKeys))]
				}
				vs := values(100 + i)
				v := vs[r.IntN(len(vs))]
				if v.raw != "" {
					known[v.raw] = v.java
				}
				p := java.PartitionFor([]byte(key), 25)
				if r.IntN(4) == 0 {
					p = r.IntN(25)
				}
				h.write(p, key, v.raw)
				time.Sleep(2 * time.Millisecond) // record times in write order
			}
			before := reads(h, known)
			body := model.OffsetsBody(h.rows("c"))
			ctx := context.Background()
			if pl, err := h.ed.Plan(ctx, plan.Request{Connector: "c", Kind: plan.KindResetAll}); err == nil {
				if res, err := h.ed.Apply(ctx, pl); err != nil || !res.Verified {
					t.Fatalf("reset: %v %+v", err, res)
				}
			}
			time.Sleep(2 * time.Millisecond)
			req := plan.Request{Connector: "c", Kind: plan.KindImport}
			v, err := java.ParseJSON(body)
			if err != nil {
				t.Fatalf("export body %s: %v", body, err)
			}
			offs, _ := v.(java.Object).Get("offsets")
			for _, e := range offs.([]any) {
				o := e.(java.Object)
				part, _ := o.Get("partition")
				off, _ := o.Get("offset")
				req.Items = append(req.Items, plan.Item{Partition: part.(java.Object), Offset: off.(java.Object)})
			}
			if len(req.Items) > 0 {
				pl, err := h.ed.Plan(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if res, err := h.ed.Apply(ctx, pl); err != nil || !res.Verified {
					t.Fatalf("import: %v %+v", err, res)
				}
			}
			after := reads(h, known)
			for _, k := range taskKeys {
				if !sameReads(before[k], after[k]) {
					t.Errorf("%s: the task read %q, after export → reset → import it reads %q (export %s)", k, before[k], after[k], body)
				}
			}
		})
	}
}

func sameReads(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	// Numbers as JsonConverter reads them: Long (low 64 bits), Double.
	va, err1 := java.ParseJSON([]byte(a))
	vb, err2 := java.ParseJSON([]byte(b))
	return err1 == nil && err2 == nil && java.JavaIdentity(va) == java.JavaIdentity(vb)
}
