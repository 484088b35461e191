package cli

import (
	"encoding/base64"
	"strconv"
	"time"
	"unicode/utf8"

	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// How koff history shows a stored value: what the worker reads is JSON
// shown as JSON; anything else is shown so that different bytes never
// look alike, and says why the task gets no offset from it.

// valueUnreadable says why a task gets no offset from a stored value ("":
// it reads one), as the worker's converter and OffsetUtils.validateFormat
// judge it. A tombstone is no value.
func valueUnreadable(v []byte) string {
	if v == nil || store.PlainOffset(v) {
		return ""
	}
	if _, err := model.ParseOffset(v); err != nil {
		return err.Error()
	}
	return ""
}

// valueIsJSON: v is JSON as every reader takes it (RFC 8259, UTF-8).
func valueIsJSON(v []byte) bool { return java.Valid(v) && utf8.Valid(v) }

// appendValueJSON appends the "value" field of a commit, and the fields
// that say what it is when it is not JSON a task reads:
//
//   - a tombstone: null;
//   - JSON: as stored, numbers and strings as they are, without the
//     whitespace between tokens (a raw CR there would end a terminal's
//     line), text a terminal would act on as JSON's \u escapes;
//   - other bytes: a string of them, each byte that is not UTF-8 as the
//     text \xff, with "value_base64", the exact bytes;
//   - "unreadable": why the task gets no offset from it (a raw control
//     character in a string, bytes that are not UTF-8, not an object, …),
//     so a value the worker cannot parse never passes for one it can.
func appendValueJSON(b, v []byte) []byte {
	b = append(b, `"value":`...)
	switch {
	case v == nil:
		return append(b, "null"...)
	case store.PlainOffset(v):
		// Nearly every value: compact, printable ASCII, an offset every
		// task reads. Nothing to escape, compact or say.
		return append(b, v...)
	case valueIsJSON(v):
		b = appendJSONSafe(b, compactJSON(v))
	default:
		b = appendBytesString(b, v)
		b = append(b, `,"value_base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, v)
		b = append(b, '"')
	}
	if why := valueUnreadable(v); why != "" {
		b = append(b, `,"unreadable":`...)
		b = appendJSONSafe(b, java.AppendJackson(nil, why))
	}
	return b
}

// compactJSON is valid JSON without the whitespace between its tokens.
func compactJSON(v []byte) []byte {
	spaced := false
	for _, c := range v {
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			spaced = true
			break
		}
	}
	if !spaced {
		return v
	}
	out := make([]byte, 0, len(v))
	inStr := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(v) {
				i++
				out = append(out, v[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			out = append(out, c)
		}
	}
	return out
}

// appendBytesString appends v as a JSON string: its UTF-8 as JSON writes
// it (made safe), each byte that is not UTF-8 as the four characters \xNN
// (a JSON string holds characters, not bytes).
func appendBytesString(b, v []byte) []byte {
	const hex = "0123456789abcdef"
	var s []byte
	for i := 0; i < len(v); {
		r, n := utf8.DecodeRune(v[i:])
		if r == utf8.RuneError && n == 1 {
			s = append(s, '\\', 'x', hex[v[i]>>4], hex[v[i]&15])
		} else {
			s = append(s, v[i:i+n]...)
		}
		i += n
	}
	return appendJSONSafe(b, java.AppendJackson(nil, string(s)))
}

// historyValueText is a commit's value in the text history: JSON as JSON
// (jsonField), anything else with its bytes shown as the sanitiser shows
// them (\x1b, \xff), never as a JSON escape it does not hold; and, when
// the task gets no offset from it, why.
func historyValueText(v []byte) string {
	if v == nil {
		return "(tombstone)"
	}
	if store.PlainOffset(v) {
		return field(string(v)) // printable ASCII JSON: nothing to escape
	}
	s := ""
	if valueIsJSON(v) {
		s = jsonField(string(compactJSON(v)))
	} else {
		s = field(string(v))
	}
	if why := valueUnreadable(v); why != "" {
		s += "  (unreadable: " + field(why) + ")"
	}
	return s
}

// noTimestamp: the record carries none (-1, Kafka's NO_TIMESTAMP).
func noTimestamp(t time.Time) bool { return t.UnixMilli() == -1 }

// noTimestampText is what the history shows for a record without one.
const noTimestampText = "(no timestamp)"

// historyWhen is a commit's time as the text history shows it.
func historyWhen(t time.Time) string {
	if noTimestamp(t) {
		return noTimestampText
	}
	return historyTime(t)
}

// appendTimeJSON appends a "time" field: the time in UTC to the
// millisecond, or null for a record without one.
func appendTimeJSON(b []byte, t time.Time, r *refText) []byte {
	if noTimestamp(t) {
		return append(b, `"time":null`...)
	}
	b = append(b, `"time":"`...)
	if r != nil {
		b = r.appendTime(b, t)
	} else {
		b = appendHistoryTime(b, t)
	}
	return append(b, '"')
}

// recordText is where a commit is: topic/partition@offset.
func recordText(tp model.TopicPartition, offset int64) string {
	return field(tp.String() + "@" + strconv.FormatInt(offset, 10))
}

// appendKeyJSON appends stored key bytes as a JSON string, with
// "key_base64" after it when they are not UTF-8 (their \xNN text alone
// could look like another key's).
func appendKeyJSON(b []byte, key string) []byte {
	if utf8.ValidString(key) {
		return java.AppendJackson(b, key)
	}
	b = appendBytesString(b, []byte(key))
	b = append(b, `,"key_base64":"`...)
	b = base64.StdEncoding.AppendEncode(b, []byte(key))
	return append(b, '"')
}
