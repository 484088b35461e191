package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"koff/model"
)

// refSinkGroup is SetGroups as it was before it kept commit marks by
// place: a map by topic-partition, and the partitions and totals worked
// out again at each read. Marks are those of the last poll's partitions.
type refSinkGroup struct {
	poll      model.GroupPoll
	committed map[model.TopicPartition]commitMark
}

func (g *refSinkGroup) set(at time.Time, p model.GroupPoll) (reloaded bool) {
	if p.Err != "" && g.poll.Partitions != nil && p.Partitions == nil {
		return false
	}
	prev := map[model.TopicPartition]int64{}
	for _, x := range g.poll.Partitions {
		prev[x.TopicPartition] = x.End
	}
	for _, x := range p.Partitions {
		if end, ok := prev[x.TopicPartition]; ok && x.End < end {
			reloaded = true
		}
	}
	next := map[model.TopicPartition]commitMark{}
	for _, x := range p.Partitions {
		m, ok := g.committed[x.TopicPartition]
		switch {
		case reloaded || !ok:
			next[x.TopicPartition] = commitMark{offset: x.Committed}
		case m.offset != x.Committed:
			next[x.TopicPartition] = commitMark{offset: x.Committed, at: at}
		default:
			next[x.TopicPartition] = m
		}
	}
	g.poll, g.committed = p, next
	return reloaded
}

func (g *refSinkGroup) rows() []model.SinkPartitionRow {
	var rows []model.SinkPartitionRow
	for _, p := range g.poll.Partitions {
		rows = append(rows, model.SinkPartitionRow{GroupPartition: p, Lag: p.Lag(), CommittedAt: g.committed[p.TopicPartition].at})
	}
	slices.SortFunc(rows, func(a, b model.SinkPartitionRow) int {
		return compareGroupPartitions(a.GroupPartition, b.GroupPartition)
	})
	return rows
}

// A Store that keeps commit marks by place in sorted partitions gives,
// after any sequence of polls (partitions in any order, added and
// dropped, commits moving or not, ends going back, failed polls), the
// rows, commit ages, total lag and last commit that keying them by
// topic-partition gives.
func TestSetGroupsSameAsByTopicPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 31))
	for seq := range 200 {
		s := NewStore(StoreOptions{})
		ref := &refSinkGroup{}
		at := time.Unix(1_700_000_000, 0)
		committed := map[model.TopicPartition]int64{}
		ends := map[model.TopicPartition]int64{}
		for step := range 30 {
			at = at.Add(time.Second)
			p := model.GroupPoll{Group: "connect-s"}
			if rng.IntN(10) == 0 && step > 0 {
				p.Err = "broker down"
			} else {
				n := rng.IntN(40)
				for i := range n {
					tp := model.TopicPartition{Topic: []string{"a", "b", "orders"}[rng.IntN(3)], Partition: rng.IntN(20)}
					if rng.IntN(3) == 0 {
						committed[tp] += int64(rng.IntN(3))
					}
					ends[tp] = max(ends[tp]+int64(rng.IntN(4)), committed[tp])
					if rng.IntN(40) == 0 {
						ends[tp], committed[tp] = 0, 0 // recreated
					}
					if slices.ContainsFunc(p.Partitions, func(x model.GroupPartition) bool { return x.TopicPartition == tp }) {
						continue
					}
					_ = i
					p.Partitions = append(p.Partitions, model.GroupPartition{TopicPartition: tp, Committed: committed[tp], End: ends[tp]})
				}
				if rng.IntN(2) == 0 { // the same partitions as last time, in the broker's order
					p.Partitions = slices.Clone(ref.poll.Partitions)
					for i := range p.Partitions {
						x := &p.Partitions[i]
						if rng.IntN(3) == 0 {
							committed[x.TopicPartition]++
							ends[x.TopicPartition] = max(ends[x.TopicPartition], committed[x.TopicPartition])
						}
						x.Committed, x.End = committed[x.TopicPartition], ends[x.TopicPartition]
					}
				}
				rng.Shuffle(len(p.Partitions), func(i, j int) { p.Partitions[i], p.Partitions[j] = p.Partitions[j], p.Partitions[i] })
			}
			reloaded := ref.set(at, clonePoll(p))
			s.SetGroups(at, []model.GroupPoll{p})
			ctx := fmt.Sprintf("sequence %d step %d", seq, step)
			got, want := s.SinkPartitions("connect-s"), ref.rows()
			if !slices.Equal(got, want) {
				t.Fatalf("%s: rows\n%+v\nwant\n%+v", ctx, got, want)
			}
			sum := s.groups["connect-s"].summary()
			var lag int64
			var last time.Time
			for _, r := range want {
				lag += r.Lag
				if r.CommittedAt.After(last) && r.Committed >= 0 {
					last = r.CommittedAt
				}
			}
			if sum.TotalLag != lag || !sum.LastCommit.Equal(last) || sum.Partitions != len(want) {
				t.Fatalf("%s: summary lag %d, last commit %v, %d partitions; want %d, %v, %d", ctx, sum.TotalLag, sum.LastCommit, sum.Partitions, lag, last, len(want))
			}
			if reloaded && !sum.Reloaded.Equal(at) {
				t.Fatalf("%s: an end that went back did not start the history over", ctx)
			}
		}
	}
}

// Placing partitions by number sorts them as comparing them does, for
// dense and sparse partition numbers, one topic or several; repeats are
// left to the sort.
func TestPlacedPartitionsIsASort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	for range 500 {
		var ps []model.GroupPartition
		spread := []int{10, 100, 100_000}[rng.IntN(3)]
		for range rng.IntN(50) {
			ps = append(ps, model.GroupPartition{TopicPartition: model.TopicPartition{Topic: []string{"a", "b", "c.d"}[rng.IntN(3)], Partition: rng.IntN(spread)}, Committed: rng.Int64N(9)})
		}
		want := slices.Clone(ps)
		slices.SortStableFunc(want, compareGroupPartitions)
		got, ok := placedPartitions(slices.Clone(ps))
		repeats := len(slices.CompactFunc(slices.Clone(want), func(a, b model.GroupPartition) bool { return a.TopicPartition == b.TopicPartition })) != len(want)
		if ok && (repeats || !slices.Equal(got, want)) {
			t.Fatalf("placed %+v\nwant %+v", got, want)
		}
		if !ok && !repeats && spread == 10 {
			t.Fatalf("dense partitions %+v not placed", ps)
		}
		if sorted := sortedPartitions(slices.Clone(ps)); !slices.EqualFunc(sorted, want, func(a, b model.GroupPartition) bool { return a.TopicPartition == b.TopicPartition }) {
			t.Fatalf("sorted %+v\nwant %+v", sorted, want)
		}
	}
}

func clonePoll(p model.GroupPoll) model.GroupPoll {
	p.Partitions = slices.Clone(p.Partitions)
	return p
}

// BenchmarkSetGroups100k records polls of one sink group of 100,000
// partitions, as the lag poller hands them at each refresh (in the
// broker's order, the same partitions, a tenth of the commits moved), and
// reads its summary as the dashboard and the metrics do.
//
//	go test ./model/store -run XXX -bench SetGroups100k
func BenchmarkSetGroups100k(b *testing.B) {
	parts := 100_000
	if testing.Short() {
		parts = 5_000
	}
	base := make([]model.GroupPartition, parts)
	for i := range base {
		base[i] = model.GroupPartition{TopicPartition: model.TopicPartition{Topic: "sink-topic", Partition: (i * 7919) % parts}, Committed: 10, End: 12}
	}
	s := NewStore(StoreOptions{})
	at := time.Unix(1_700_000_000, 0)
	b.ReportAllocs()
	for n := range b.N {
		p := model.GroupPoll{Group: "connect-big", Partitions: slices.Clone(base)}
		for i := n % 10; i < parts; i += 10 {
			p.Partitions[i].Committed += int64(n)
			p.Partitions[i].End += int64(n)
		}
		at = at.Add(2 * time.Second)
		s.SetGroups(at, []model.GroupPoll{p})
		if sum := s.groups["connect-big"].summary(); sum.Partitions != parts {
			b.Fatal(sum.Partitions)
		}
	}
}
