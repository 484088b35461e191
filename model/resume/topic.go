package resume

import (
	"strconv"
	"strings"
)

// The values of a Kafka consumer's auto.offset.reset: what it does when
// its position is not in the partition's log (OffsetOutOfRange). Kafka 4.0
// added by_duration:<ISO-8601 duration> (KIP-1106).
const (
	ResetEarliest = "earliest"
	ResetLatest   = "latest"
	ResetNone     = "none"
)

// Log is a topic-partition's log: Start is the oldest offset it still
// holds (retention and DeleteRecords move it up), End the next offset to
// be written (the high watermark).
type Log struct {
	Start, End int64
}

// Policy is a consumer's auto.offset.reset and where koff read it.
type Policy struct {
	Reset string
	// From names the setting or the default it came from.
	From string
}

func (p Policy) text() string {
	return "auto.offset.reset=" + p.Reset + " (" + p.From + ")"
}

// readPolicy is the first of keys config sets, else def. Kafka's
// AutoOffsetResetStrategy reads the names in any case; a by_duration
// value is kept as written.
func readPolicy(config map[string]string, def Policy, keys ...string) Policy {
	for _, k := range keys {
		v := strings.TrimSpace(config[k])
		if v == "" {
			continue
		}
		if l := strings.ToLower(v); l == ResetEarliest || l == ResetLatest || l == ResetNone {
			v = l
		}
		return Policy{Reset: v, From: k}
	}
	return def
}

// SinkPolicy is the auto.offset.reset a sink task's consumer gets.
// Connect's Worker.baseConsumerConfigs puts "earliest", then the worker's
// own consumer.* settings (which koff cannot see), then the connector's
// consumer.override.* (ConnectorConfig's client overrides, allowed by the
// default override policy, All).
func SinkPolicy(config map[string]string) Policy {
	def := Policy{Reset: ResetEarliest, From: "Connect's default for sink tasks"}
	if config == nil {
		def.From += "; koff has no config of the connector to see an override in"
	}
	return readPolicy(config, def, "consumer.override.auto.offset.reset")
}

// MirrorPolicy is the auto.offset.reset of MirrorSourceTask's consumer of
// the source cluster: MirrorConnectorConfig.sourceConsumerConfig lays
// consumer.* and then source.consumer.* over the source cluster's client
// settings, and puts "earliest" if neither set it.
func MirrorPolicy(config map[string]string) Policy {
	def := Policy{Reset: ResetEarliest, From: "MirrorMaker 2's default"}
	if config == nil {
		def.From += "; koff has no config of the connector to see an override in"
	}
	return readPolicy(config, def, "source.consumer.auto.offset.reset", "consumer.auto.offset.reset")
}

// JudgeOffset judges a consumer whose next offset to read is next against
// the partition's log: within it (start and end included) it resumes;
// below the log start the records in between are gone; beyond the log end
// (the topic was deleted and created again, or truncated) the position
// does not exist. Out of the log, the consumer's policy decides where it
// really starts.
func JudgeOffset(next int64, log Log, p Policy) Partition {
	out := Partition{Position: "offset " + itoa(next), Lost: None, Replayed: None}
	held := log.End - log.Start
	switch {
	case next >= log.Start && next <= log.End:
		out.State = Resumes
		out.Action = "reads on from offset " + itoa(next) + " (" + records(log.End-next) + " to read)"
	case next < log.Start:
		out.State = Gap
		gone := log.Start - next
		below := "offset " + itoa(next) + " is below the log start " + itoa(log.Start) + " (" + records(gone) + " deleted by retention or DeleteRecords)"
		switch {
		case p.Reset == ResetEarliest:
			out.Lost.Records = gone
			out.ResumesAt = "offset " + itoa(log.Start)
			out.Action = below + ": " + p.text() + " moves it to the log start, offset " + itoa(log.Start) + ", skipping the " + records(gone)
		case p.Reset == ResetLatest:
			out.Lost.Records = log.End - next
			out.ResumesAt = "offset " + itoa(log.End)
			out.Action = below + ": " + p.text() + " moves it to the log end, offset " + itoa(log.End) + ", skipping the " + records(gone) + " deleted and the " + records(held) + " still held"
		case p.Reset == ResetNone:
			out.Lost.Records = gone
			out.Action = below + ": " + p.text() + " makes the task fail (OffsetOutOfRangeException) until the offset is moved; the " + records(gone) + " are gone wherever it is moved to"
		default:
			out.Lost.Records = gone
			out.Action = below + ": " + p.text() + " moves it to the first record at or after that time; at least the " + records(gone) + " are skipped"
		}
	default:
		out.State = Replay
		beyond := "offset " + itoa(next) + " is beyond the log end " + itoa(log.End) + " (the topic was deleted and created again, or truncated)"
		switch {
		case p.Reset == ResetEarliest:
			out.Replayed.Records = held
			out.ResumesAt = "offset " + itoa(log.Start)
			out.Action = beyond + ": " + p.text() + " moves it to the log start, offset " + itoa(log.Start) + ", and reads the " + records(held) + " the log holds from there"
		case p.Reset == ResetLatest:
			// Nothing is read again: what the log holds is skipped.
			out.State = Gap
			out.Lost.Records = held
			out.ResumesAt = "offset " + itoa(log.End)
			out.Action = beyond + ": " + p.text() + " moves it to the log end, offset " + itoa(log.End) + ", skipping the " + records(held) + " the log holds"
		case p.Reset == ResetNone:
			out.Action = beyond + ": " + p.text() + " makes the task fail (OffsetOutOfRangeException) until the offset is moved"
		default:
			out.Action = beyond + ": " + p.text() + " moves it to the first record at or after that time"
		}
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// records is "1 record", "12 records".
func records(n int64) string {
	if n == 1 {
		return "1 record"
	}
	return itoa(n) + " records"
}
