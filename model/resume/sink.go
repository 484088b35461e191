package resume

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SinkPartition is what koff read of one topic-partition a sink's
// consumer group committed: the next offset it will consume and the
// partition's log, or why the log could not be read.
type SinkPartition struct {
	Topic     string
	Partition int
	Committed int64
	// Epoch is the committed offset's leader epoch (-1: none, as Connect's
	// REST API and kafka-consumer-groups commit); EpochEnd is where the
	// log says that epoch ends, asked of an offset beyond the log end (-1:
	// the log does not know the epoch).
	Epoch    int32
	EpochEnd int64
	Log      Log
	Err      string
}

// Sink judges a sink connector from its group's committed offsets, under
// the auto.offset.reset its consumer gets (SinkPolicy). groupErr is why
// the group could not be read at all.
func Sink(name, class string, config map[string]string, group string, parts []SinkPartition, groupErr string, at time.Time) Connector {
	c := Connector{Name: name, Class: class, Type: "sink", Checked: at}
	if groupErr != "" {
		c.Reason = "cannot read consumer group " + group + ": " + groupErr
		return c
	}
	p := SinkPolicy(config)
	if len(parts) == 0 {
		c.Note = "no committed offsets in consumer group " + group + ": its tasks start from " + p.text() + " where the log allows"
		return c
	}
	reads := subscribed(config)
	var sorted []SinkPartition
	var others []string
	for _, sp := range parts {
		if reads(sp.Topic) {
			sorted = append(sorted, sp)
		} else if !slices.Contains(others, sp.Topic) {
			others = append(others, sp.Topic)
		}
	}
	if len(others) > 0 {
		sort.Strings(others)
		c.Note = "the group's offsets of topics the connector no longer reads are left out: " + strings.Join(others, ", ")
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Topic != sorted[j].Topic {
			return sorted[i].Topic < sorted[j].Topic
		}
		return sorted[i].Partition < sorted[j].Partition
	})
	for _, sp := range sorted {
		id := sp.Topic + "/" + strconv.Itoa(sp.Partition)
		if sp.Err != "" {
			c.Partitions = append(c.Partitions, Partition{Partition: id, Position: "offset " + itoa(sp.Committed), State: Unknown,
				Lost: None, Replayed: None, Reason: "cannot read the log of " + id + ": " + sp.Err})
			continue
		}
		if sp.Committed < 0 {
			c.Partitions = append(c.Partitions, Partition{Partition: id, Position: "none committed", State: Resumes, Lost: None, Replayed: None,
				Action: "no committed offset: the task starts where " + p.text() + " puts it"})
			continue
		}
		r := JudgeOffset(sp.Committed, sp.Log, p)
		if sp.Committed > sp.Log.End && sp.Epoch >= 0 && p.Reset != ResetNone {
			r = judgeTruncation(sp, p)
		}
		r.Partition = id
		c.Partitions = append(c.Partitions, r)
	}
	return c
}

// judgeTruncation is a committed offset beyond the log end that carries a
// leader epoch: the consumer validates it before it fetches
// (SubscriptionState.maybeCompleteValidation, after OffsetsForLeaderEpoch)
// and, as the epoch ends before the offset, logs "Truncation detected" and
// moves to where the epoch ends; an epoch the log does not know makes it
// reset by its policy. Only a policy of none fails the task instead
// (JudgeOffset says so).
func judgeTruncation(sp SinkPartition, p Policy) Partition {
	if sp.EpochEnd < 0 {
		r := JudgeOffset(sp.Committed, sp.Log, p)
		r.Action = "its leader epoch " + strconv.Itoa(int(sp.Epoch)) + " is not in the log (Truncation detected): " + r.Action
		return r
	}
	to := sp.EpochEnd
	r := JudgeOffset(to, sp.Log, p)
	r.Position = "offset " + itoa(sp.Committed)
	truncated := "offset " + itoa(sp.Committed) + " is beyond the log end " + itoa(sp.Log.End) +
		" (the topic was deleted and created again, or truncated) and its leader epoch " + strconv.Itoa(int(sp.Epoch)) +
		" ends at offset " + itoa(to) + " in the log: the consumer's validation (Truncation detected) moves it to offset " + itoa(to)
	if r.State != Resumes {
		// Below the log start too: the policy places it after all.
		r.Action = truncated + ", then " + r.Action
		return r
	}
	r.ResumesAt = "offset " + itoa(to)
	held := sp.Log.End - sp.Log.Start
	if to > sp.Log.Start {
		r.State, r.Lost = Gap, Amount{Records: to - sp.Log.Start, Bytes: -1}
		r.Action = truncated + ", skipping the " + records(to-sp.Log.Start) + " before it"
		if rest := sp.Log.End - to; rest > 0 {
			r.Action += ", and reads the " + records(rest) + " after"
		}
		return r
	}
	r.State, r.Replayed = Replay, Amount{Records: held, Bytes: -1}
	r.Action = truncated + ", the log start, and reads the " + records(held) + " the log holds from there"
	return r
}

// subscribed says whether a sink reads a topic: one of its topics, or a
// match of its topics.regex (SinkConnectorConfig), as a whole name. With
// neither (a config koff does not have) or a pattern Go cannot read,
// every topic is.
func subscribed(config map[string]string) func(string) bool {
	if list := strings.TrimSpace(config["topics"]); list != "" {
		var topics []string
		for _, t := range strings.Split(list, ",") {
			topics = append(topics, strings.TrimSpace(t))
		}
		return func(t string) bool { return slices.Contains(topics, t) }
	}
	if re, err := regexp.Compile(`^(?:` + strings.TrimSpace(config["topics.regex"]) + `)$`); err == nil && strings.TrimSpace(config["topics.regex"]) != "" {
		return re.MatchString
	}
	return func(string) bool { return true }
}
