package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"koff/model"
	"koff/model/resume"
	"koff/probe"
)

// A poller's check of MirrorMaker 2 connectors, which keeps their offsets
// parsed and their last check (probe.Kept), says what a check that keeps
// nothing says (koff check's), round after round of random offsets handed
// again as they were, read again the same, or moved, and of records
// written to and deleted from the source cluster (and koff check's says
// what the plain check below, the check before either kept anything,
// says); one whose offsets and
// source logs did not move is that check again, checked now.
func TestResumeMirrorKeptEqualsAFreshCheck(t *testing.T) {
	src := broker(t)
	if err := src.CreateTopic("src-orders", 3, nil); err != nil {
		t.Fatal(err)
	}
	for p := range 3 {
		records(t, src.Bootstrap(), "src-orders", p, 20)
	}
	cfg := func(bootstrap string) map[string]string {
		return map[string]string{"connector.class": resume.ClassMirrorSource, "source.cluster.alias": "src", "source.cluster.bootstrap.servers": bootstrap}
	}
	r := rand.New(rand.NewPCG(5, 6))
	offsets := func() []probe.Offset {
		var out []probe.Offset
		for p := range 3 {
			off := fmt.Sprint(r.IntN(40) - 2)
			if r.IntN(8) == 0 {
				off = "1.5" // not a whole number: unknown, and why
			}
			out = append(out, probe.Offset{Partition: fmt.Sprintf(`{"cluster":"src","partition":%d,"topic":"src-orders"}`, p), Offset: `{"offset":` + off + `}`})
		}
		out = append(out, probe.Offset{Partition: `{"cluster":"src","partition":0,"topic":"gone"}`, Offset: `{"offset":1}`})
		return out
	}
	at := time.Now()
	now := func() time.Time { return at }
	kept := &probe.Checker{Timeout: 5 * time.Second, Now: now, Keep: &probe.Kept{}}
	fresh := &probe.Checker{Timeout: 5 * time.Second, Now: now}
	sources := []probe.Source{
		{Name: "mm2", Type: "source", Class: resume.ClassMirrorSource, Config: cfg(src.Bootstrap()), Offsets: offsets()},
		{Name: "mm2-down", Type: "source", Class: resume.ClassMirrorSource, Config: cfg(freeAddr(t)), Offsets: offsets()},
	}
	var before []resume.Connector
	start := int64(0)
	for round := range 14 {
		moved := false
		switch round % 4 {
		case 1: // read again, the same
			sources[0].Offsets = slices.Clone(sources[0].Offsets)
		case 2:
			sources[0].Offsets, moved = offsets(), true
		case 3:
			if round%8 == 3 {
				records(t, src.Bootstrap(), "src-orders", r.IntN(3), 3)
			} else {
				start += int64(1 + r.IntN(4))
				deleteRecordsBefore(t, src.Bootstrap(), "src-orders", 0, start)
			}
			moved = true
		}
		at = at.Add(time.Second)
		want := []resume.Connector{plainMirrorCheck(sources[0], at), plainMirrorCheck(sources[1], at)}
		if f := fresh.Check(context.Background(), sources); !reflect.DeepEqual(f, want) {
			t.Fatalf("round %d:\nkoff check's %+v\nplain        %+v", round, f, want)
		}
		got := kept.Check(context.Background(), sources)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d:\nkept  %+v\nfresh %+v", round, got, want)
		}
		if round > 0 && !moved && &got[0].Partitions[0] != &before[0].Partitions[0] {
			t.Errorf("round %d: mm2 was judged again though nothing moved", round)
		}
		if round > 0 && &got[1].Partitions[0] != &before[1].Partitions[0] {
			t.Errorf("round %d: mm2-down was judged again though its source cluster still does not answer", round)
		}
		if got[0].Checked != at || got[1].Checked != at {
			t.Errorf("round %d: checked %v and %v, want %v", round, got[0].Checked, got[1].Checked, at)
		}
		before = got
	}
}

// plainMirrorCheck is the check of a MirrorSourceConnector as it was made
// before anything was kept: every offset parsed, every partition's log
// asked for, all judged.
func plainMirrorCheck(s probe.Source, at time.Time) resume.Connector {
	parts := make([]resume.MirrorPartition, 0, len(s.Offsets))
	byAlias := map[string][]int{}
	for _, o := range s.Offsets {
		m, err := resume.ParseMirrorOffset(o.Partition, o.Offset)
		mp := resume.MirrorPartition{Offset: m}
		if err != nil {
			mp.Err = err.Error()
		} else {
			byAlias[m.Cluster] = append(byAlias[m.Cluster], len(parts))
		}
		parts = append(parts, mp)
	}
	for alias, idx := range byAlias {
		cfg, err := probe.PlainSourceCluster(alias, s.Config)
		if err != nil {
			panic(err)
		}
		var tps []model.TopicPartition
		for _, i := range idx {
			tps = append(tps, model.TopicPartition{Topic: parts[i].Offset.Topic, Partition: parts[i].Offset.Num})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		bounds, bad, err := cfg.TopicBounds(ctx, tps)
		cancel()
		for k, i := range idx {
			switch {
			case err != nil:
				parts[i].Err = fmt.Sprintf("source cluster %s at %s: %s", alias, strings.Join(cfg.Brokers, ","), cfg.Describe(err))
			case bad.Of(tps[k]) != "":
				parts[i].Err = "source cluster " + alias + ": " + bad.Of(tps[k])
			default:
				b := bounds[tps[k]]
				parts[i].Log = resume.Log{Start: b[0], End: b[1]}
			}
		}
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].Offset.Partition < parts[j].Offset.Partition })
	return resume.Mirror(s.Name, s.Class, s.Config, parts, at)
}
