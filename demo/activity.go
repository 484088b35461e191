package demo

import (
	"math/rand/v2"
	"time"
)

// activity says when a source partition has new data, so that some
// partitions are busy, some bursty and some idle for long stretches: the
// ages of their committed offsets then differ the way they do in production.
//
// A partition yields rate records per second while active. With period 0 it
// is always active; otherwise it is active for the first `on` of every
// period, shifted by phase, counted from the cluster's start.
type activity struct {
	rate   float64
	on     time.Duration
	period time.Duration
	phase  time.Duration
}

func steady(rate float64) activity { return activity{rate: rate} }

// bursty is active for on out of every period, first from `first` after start.
func bursty(rate float64, on, period, first time.Duration) activity {
	return activity{rate: rate, on: on, period: period, phase: (period - first%period) % period}
}

// idle never yields a record while the demo runs (a rotated log file, a
// table nobody writes to, an upstream partition without traffic).
var idle = activity{}

func (a activity) activeAt(elapsed time.Duration) bool {
	if a.rate <= 0 {
		return false
	}
	if a.period <= 0 {
		return true
	}
	return (elapsed+a.phase)%a.period < a.on
}

// due returns how many records to read in a poll covering dt, carrying the
// fraction over in *credit so slow partitions still get their records. The
// jitter keeps batches uneven, as real polls are.
func (a activity) due(elapsed, dt time.Duration, credit *float64, rng *rand.Rand) int {
	if !a.activeAt(elapsed) {
		*credit = 0
		return 0
	}
	*credit += a.rate * dt.Seconds() * (0.5 + rng.Float64())
	n := int(*credit)
	*credit -= float64(n)
	return n
}
