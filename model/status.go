package model

import (
	"strings"
	"time"
)

// TailState is where the offsets-topic tailer stands.
type TailState int

const (
	TailConnecting TailState = iota
	TailWaitingForTopic
	TailCatchingUp
	TailLive
	TailDisconnected
	// TailStalled: connected, but a partition's fetch has gone unanswered
	// longer than the Tailer's bound (a broker that accepts and says nothing).
	TailStalled
)

func (s TailState) String() string {
	switch s {
	case TailConnecting:
		return "connecting"
	case TailWaitingForTopic:
		return "waiting for topic"
	case TailCatchingUp:
		return "catching up"
	case TailLive:
		return "live"
	case TailDisconnected:
		return "disconnected"
	case TailStalled:
		return "stalled"
	}
	return "unknown"
}

// TailStatus is the tailer's state as the UI and CLI report it.
type TailStatus struct {
	State TailState
	// Reason explains WaitingForTopic, Disconnected and Stalled, in one line.
	Reason string
	// Read and Total measure catch-up progress in offsets of the offsets
	// topics: Total is the distance from log start to the high watermark seen
	// at start, Read how much of it has been consumed.
	Read, Total int64
	// Since is when the state last changed; for disconnected and stalled,
	// when the outage began, however its reason changed since.
	Since time.Time
	// Reloaded is when the Tailer last threw away what it had read and
	// began again from scratch (a different cluster, a recreated topic),
	// and ReloadReason why; zero if never.
	Reloaded     time.Time
	ReloadReason string
	// Reloads counts them since the Tailer started.
	Reloads int
	// Silent, while not yet stalled, is the last moment every partition
	// had answered, once a fetch is overdue (a live fetch answers within
	// its MaxWait): from then on koff sees no new flush. Zero while
	// answers come.
	Silent time.Time
	// Missing is the offsets topics that did not exist at the last
	// metadata read, comma-separated in order; Deleted those of them koff
	// had read since it started: a topic deleted under it, whose
	// connectors' offsets are gone (never "live" while one is).
	Missing, Deleted string
}

// DeletedTopics lists Deleted.
func (s TailStatus) DeletedTopics() []string { return splitTopics(s.Deleted) }

// MissingTopics lists Missing.
func (s TailStatus) MissingTopics() []string { return splitTopics(s.Missing) }

func splitTopics(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",") // Kafka's topic names have no comma
}

// Blind is since when koff has seen nothing of the offsets topics, and
// why in a few words; zero while it sees them.
func (s TailStatus) Blind(now time.Time) (time.Time, string) {
	switch {
	case s.State == TailDisconnected || s.State == TailStalled:
		return s.Since, "Kafka " + s.State.String() + " since " + TimeText(s.Since)
	case !s.Silent.IsZero():
		return s.Silent, "no answer from Kafka for " + Itoa(int(now.Sub(s.Silent)/time.Second)) + "s"
	}
	return time.Time{}, ""
}

// Progress is catch-up progress in [0,1].
func (s TailStatus) Progress() float64 {
	if s.Total <= 0 {
		if s.State == TailLive {
			return 1
		}
		return 0
	}
	p := float64(s.Read) / float64(s.Total)
	if p > 1 {
		p = 1
	}
	return p
}
