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
	// log says that epoch ends (-1: the log does not know the epoch), when
	// EpochAsked.
	Epoch      int32
	EpochEnd   int64
	EpochAsked bool
	Log        Log
	Err        string
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
	sorted := make([]SinkPartition, 0, len(parts))
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
	if len(sorted) > 0 {
		c.Partitions = make([]Partition, 0, len(sorted)) // 100,000: no copies growing it
	}
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
		if sp.Epoch >= 0 && sp.EpochAsked {
			r = judgeValidated(sp, p)
		}
		r.Partition = id
		c.Partitions = append(c.Partitions, r)
	}
	return c
}

// judgeValidated is a committed offset that carries a leader epoch, which
// the consumer validates before it fetches (KafkaConsumer's
// SubscriptionState.maybeCompleteValidation, after OffsetsForLeaderEpoch):
// where the log says the epoch ends at or past the offset, it is used as
// it is (JudgeOffset); where the epoch ends before it, "Truncation
// detected" moves the consumer to where the epoch ends; an epoch the log
// does not know makes it reset by its policy, wherever the offset is. With
// a policy of none either fails the task (LogTruncationException).
func judgeValidated(sp SinkPartition, p Policy) Partition {
	c, log := sp.Committed, sp.Log
	if sp.EpochEnd >= c {
		return JudgeOffset(c, log, p)
	}
	epoch := "its leader epoch " + strconv.Itoa(int(sp.Epoch))
	var why string
	if sp.EpochEnd < 0 {
		why = epoch + " is not in the log: the consumer's validation (Truncation detected) "
	} else {
		why = epoch + " ends at offset " + itoa(sp.EpochEnd) + " in the log, before offset " + itoa(c) + ": the consumer's validation (Truncation detected) "
	}
	if c > log.End {
		why = "offset " + itoa(c) + " is beyond the log end " + itoa(log.End) + " (the topic was deleted and created again, or truncated) and " + why
	} else if c < log.Start {
		why = "offset " + itoa(c) + " is below the log start " + itoa(log.Start) + " and " + why
	}
	r := Partition{Position: "offset " + itoa(c), Lost: None, Replayed: None}
	if p.Reset == ResetNone {
		r.State = Replay
		if c < log.Start {
			r.State, r.Lost.Records = Gap, log.Start-c
		}
		r.Action = why + "fails the task (LogTruncationException, " + p.text() + ") until the offset is moved"
		return r
	}
	to, how := sp.EpochEnd, "moves it to offset "+itoa(sp.EpochEnd)
	if sp.EpochEnd < 0 || sp.EpochEnd < log.Start {
		if sp.EpochEnd >= 0 {
			why += how + ", below the log start, where "
		}
		switch p.Reset {
		case ResetEarliest:
			to, how = log.Start, "resets it by "+p.text()+" to the log start, offset "+itoa(log.Start)
		case ResetLatest:
			to, how = log.End, "resets it by "+p.text()+" to the log end, offset "+itoa(log.End)
		default:
			r.State = Unknown
			r.Reason = why + "resets it by " + p.text() + " to the first record at or after that time, which koff does not look up"
			return r
		}
	}
	r.ResumesAt = "offset " + itoa(to)
	r.Action = why + how
	switch {
	case c > log.End && to > log.Start:
		r.State, r.Lost.Records = Gap, to-log.Start
		r.Action += ", skipping the " + records(to-log.Start) + " before it"
	case c > log.End:
		r.State, r.Replayed.Records = Replay, log.End-log.Start
		r.Action += ", and reads the " + records(log.End-log.Start) + " the log holds from there"
	case c < log.Start:
		r.State, r.Lost.Records = Gap, to-c
		r.Action += ", skipping the " + records(log.Start-c) + " deleted"
		if to > log.Start {
			r.Action += " and the " + records(to-log.Start) + " after them"
		}
	case to < c:
		r.State, r.Replayed.Records = Replay, c-to
		r.Action += ", and reads the " + records(c-to) + " before offset " + itoa(c) + " again"
	case to > c:
		r.State, r.Lost.Records = Gap, to-c
		r.Action += ", skipping the " + records(to-c) + " after offset " + itoa(c)
	default:
		r.State = Resumes
	}
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
	if pattern := strings.TrimSpace(config["topics.regex"]); pattern != "" {
		if re, err := regexp.Compile(`^(?:` + pattern + `)$`); err == nil {
			return re.MatchString
		}
	}
	return func(string) bool { return true }
}
