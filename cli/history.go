package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"koff/edit"
	"koff/edit/history"
	"koff/edit/plan"
	"koff/kafka"
	"koff/model"
	"koff/model/java"
	"koff/model/text"
)

type historyOptions struct {
	partition    string
	since, until string
	output       string
	group        string
	order        string
	timeout      time.Duration
}

func init() {
	register(&command{
		name:    "history",
		args:    "CONNECTOR [--partition JSON] [--since T] [--until T] [--order time|log] [-o text|json] [--group G] [--timeout D]",
		summary: "every commit of a source connector still in the offsets topic, with its time, where each partition's history begins, and koff's own edits",
		flags: func(fs *pflag.FlagSet) any {
			o := &historyOptions{}
			fs.StringVar(&o.partition, "partition", "", `only this source partition map, e.g. '{"filename":"/data/in.txt"}'`)
			fs.StringVar(&o.since, "since", "", "only commits at or after this time (UTC unless a zone is given: '2026-11-29 08:00:00', 2026-11-29T03:00:00-05:00, now-2h, -30m, PT1H)")
			fs.StringVar(&o.until, "until", "", "only commits at or before this time")
			fs.StringVarP(&o.output, "output", "o", "text", "text, or json (numbers as stored)")
			fs.StringVar(&o.group, "group", "", "a sink's consumer group, when Connect cannot name it")
			fs.StringVar(&o.order, "order", "time", "time: every commit in time order, across topic-partitions; log: topic-partition after topic-partition, each in log (offset) order")
			fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "give up reading after this long")
			return o
		},
		run: runHistory,
	})
}

// historyReader reads an offsets topic's records for the edit pipeline,
// loading load's Store with every record as it goes (nil: none).
func historyReader(cfg kafka.Config, load *kafka.HistoryLoad) history.ReadFunc {
	return func(ctx context.Context, topic string, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
		var r history.Record
		logs, err := cfg.ReadHistoryLoading(ctx, topic, load, keep, func(k *kafka.HistoryRecord) error {
			r = history.Record{Record: k.Record, LogAppendTime: k.LogAppendTime}
			return fn(&r)
		})
		return retainedLogs(logs), err
	}
}

// historyFromReader reads what an offsets topic gained since a read
// before (kafka.Config.ReadHistoryFrom): a shared history's follow.
func historyFromReader(cfg kafka.Config) history.ReadFromFunc {
	return func(ctx context.Context, topic string, from []int64, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
		var r history.Record
		logs, err := cfg.ReadHistoryFrom(ctx, topic, from, keep, func(k *kafka.HistoryRecord) error {
			r = history.Record{Record: k.Record, LogAppendTime: k.LogAppendTime}
			return fn(&r)
		})
		return retainedLogs(logs), err
	}
}

// retainedLogs are a read's logs as edit takes them.
func retainedLogs(logs []kafka.RetainedLog) []history.RetainedLog {
	out := make([]history.RetainedLog, len(logs))
	for i, l := range logs {
		out[i] = history.RetainedLog{TopicPartition: l.TopicPartition, LogStart: l.LogStart, End: l.End, FirstGap: l.FirstGap}
	}
	return out
}

func runHistory(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*historyOptions)
	if len(args) != 1 {
		return usagef("history needs exactly one CONNECTOR")
	}
	if o.output != "text" && o.output != "json" {
		return usagef("-o must be text or json, got %q", o.output)
	}
	if o.order != "time" && o.order != "log" {
		return usagef("--order must be time or log, got %q", o.order)
	}
	if o.timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.timeout)
	}
	req := history.Request{Connector: args[0], ReadOrder: o.order == "log"}
	var err error
	if o.partition != "" {
		p, err := plan.ParsePartition(o.partition)
		if err != nil {
			return usagef("--partition: %v", err)
		}
		req.Partitions = []java.Object{p}
	}
	if req.Since, req.Until, err = timeRange(o.since, o.until, env); err != nil {
		return err
	}
	// Every wait for Kafka and Connect is bounded, as get's: a broker that
	// answers nothing is one line after --timeout, not a silent hang.
	start := time.Now()
	ctx, cancel := context.WithTimeout(env.Context, o.timeout)
	defer cancel()
	bounded := env
	bounded.Context = ctx
	fail := func(err error) error {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return err
		}
		// The step that was waiting says what for; the time is the whole
		// command's.
		what := err.Error()
		if rest, ok := strings.CutPrefix(what, "timed out after "); ok {
			if _, after, ok := strings.Cut(rest, " "); ok {
				what = after
			}
		}
		return fmt.Errorf("timed out after %s reading the history of %s: %s", waited(start), field(req.Connector), what)
	}
	// One read of the offsets topics loads the Store (as koff get reads
	// it) and the history.
	var hr *history.Reading
	s, err := openSession(g, bounded, sessionOptions{oneShot: true, tap: func(_ context.Context, ed *edit.Editor) history.Tap {
		hr = ed.StartHistory(ctx, req)
		return hr
	}})
	if err != nil {
		return fail(err)
	}
	defer s.close()
	if poll, group, isSink, err := s.ed.SinkCommits(s.ctx, req.Connector, o.group); err != nil {
		return fail(err)
	} else if isSink {
		return printSinkHistory(env.Stdout, req.Connector, group, poll, o.output == "json")
	}
	if err := s.ed.RequireSource(s.ctx, req.Connector, req.Partitions); err != nil {
		return fail(err)
	}
	if !s.tapped {
		// The first read failed, the Tailer's then did not: read again.
		hr = s.ed.StartHistory(s.ctx, req)
		if err := s.ed.ReadTap(s.ctx, hr); err != nil {
			return fail(err)
		}
	}
	// Read: what is left is laying it out.
	read := func(ready func(*history.History), run func(int, func(func(*history.Commit) error) error) error) (*history.History, error) {
		if ready != nil {
			ready(s.ed.JudgeHistory(hr))
		}
		return s.ed.FinishHistoryRuns(hr, run)
	}
	out := newPipeWriter(env.Stdout)
	var h *history.History
	if o.output == "json" {
		h, err = writeHistoryJSON(req, read, out)
	} else {
		h, err = writeHistoryText(read, out)
	}
	if ferr := out.Close(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if h.Shown == 0 && len(h.Copies) == 0 {
		fmt.Fprintf(env.Stderr, "koff: no commit of %s is left in %s\n", field(req.Connector), field(strings.Join(g.OffsetsTopics, ", ")))
	}
	return nil
}

// timeRange reads --since and --until (either may be left out), refuses
// a since after the until, and says on stderr which instants it read.
func timeRange(since, until string, env Env) (s, u time.Time, err error) {
	now := time.Now()
	if since != "" {
		if s, err = readTime("--since", since, now, env); err != nil {
			return s, u, err
		}
	}
	if until != "" {
		if u, err = readTime("--until", until, now, env); err != nil {
			return s, u, err
		}
	}
	if msg := model.TimeRangeError(s, u); msg != "" {
		return s, u, usagef("%s", msg)
	}
	if !s.IsZero() {
		fmt.Fprintf(env.Stderr, "koff: commits since %s\n", timeEcho(s, env))
	}
	if !u.IsZero() {
		fmt.Fprintf(env.Stderr, "koff: commits until %s\n", timeEcho(u, env))
	}
	return s, u, nil
}

// historyTime is a commit's time as text, as koff shows every time
// (model.TimeText: UTC, to the millisecond Kafka keeps).
func historyTime(t time.Time) string { return model.TimeText(t) }

// appendHistoryTime is a commit's time in JSON, RFC 3339 in UTC, without
// time.Format's cost, which a million commits feel.
func appendHistoryTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	}
	pad := func(b []byte, n, w int) []byte { // n < 10^w
		var tmp [4]byte
		for i := len(tmp) - 1; i >= 0; i-- {
			tmp[i] = byte('0' + n%10)
			n /= 10
		}
		return append(b, tmp[4-w:]...)
	}
	b = pad(b, y, 4)
	b = append(b, '-')
	b = pad(b, int(mo), 2)
	b = append(b, '-')
	b = pad(b, d, 2)
	b = append(b, 'T')
	b = pad(b, h, 2)
	b = append(b, ':')
	b = pad(b, mi, 2)
	b = append(b, ':')
	b = pad(b, s, 2)
	b = append(b, '.')
	b = pad(b, t.Nanosecond()/1e6, 3)
	return append(b, 'Z')
}

// historyRead hands on a history's commits in runs
// (edit.Editor.FinishHistoryRuns), calling ready first, when it is not
// nil, with the History's copies judged (edit.Editor.JudgeHistory).
type historyRead func(ready func(*history.History), run func(i int, commits func(each func(*history.Commit) error) error) error) (*history.History, error)

// historyColumns are the widths of the text history's columns, in runes:
// the widest record place and partition map of the commits shown, so that
// every line's columns start where the header's do.
type historyColumns struct {
	record, partition int
}

func columnsOf(h *history.History) historyColumns {
	cols := historyColumns{record: len("RECORD"), partition: len("PARTITION")}
	for _, c := range h.Copies {
		if c.Shown == 0 {
			continue
		}
		cols.record = max(cols.record, utf8.RuneCountInString(recordText(c.ID.TopicPartition, c.LastShown)))
		cols.partition = max(cols.partition, utf8.RuneCountInString(jsonField(c.Partition)))
	}
	return cols
}

// historyTimeWidth is the TIME column's: 2026-12-03 11:55:35.568 UTC.
const historyTimeWidth = 27

func writeHistoryText(read historyRead, w *pipeWriter) (*history.History, error) {
	cols := &historyColumns{}
	ready := func(h *history.History) {
		*cols = columnsOf(h)
		fmt.Fprintf(w, "%-*s  %-*s  %-5s  %-*s  %s\n", historyTimeWidth, "TIME", cols.record, "RECORD", "COPY", cols.partition, "PARTITION", "VALUE")
	}
	h, err := writeLines(read, ready, func() lineMaker { return &historyLines{cols: cols} }, w)
	if err != nil {
		return nil, err
	}
	if len(h.Copies) > 0 {
		fmt.Fprintln(w, "\nWhere each partition's history begins:")
	}
	for _, c := range h.Copies {
		fmt.Fprintf(w, "  %s  %s  %s: %s\n", jsonField(c.Partition), field(c.ID.TopicPartition.String()), c.Copy, copySummary(c))
		if c.Copy == history.CopyStray && c.Stray != "" {
			fmt.Fprintf(w, "      stray: %s\n", noteField(c.Stray))
		}
	}
	fmt.Fprintf(w, "%d commits shown, %s. Times are %s.\n", h.Shown, orderText(h), timesAre(h.LogAppendTime))
	return h, nil
}

// orderText says in which order the commits were listed.
func orderText(h *history.History) string {
	if h.ReadOrder {
		return "each topic-partition's in log order"
	}
	return "in time order"
}

func editMark(c *history.Commit) string {
	switch {
	case c.Edit != nil:
		return fmt.Sprintf("  ← koff %s %s by %s at %s", c.Edit.Kind, c.Edit.ID, field(c.Edit.User), historyTime(c.Edit.Time))
	case c.Koff:
		return "  ← koff (not in this audit log)"
	}
	return ""
}

func copySummary(c history.CopyHistory) string {
	n := fmt.Sprintf("%d commit", c.Commits)
	if c.Commits != 1 {
		n += "s"
	}
	if c.Tombstones > 0 {
		n += fmt.Sprintf(" (%d tombstone", c.Tombstones)
		if c.Tombstones != 1 {
			n += "s"
		}
		n += ")"
	}
	begins := "its first commit"
	if !c.Complete {
		begins = "older commits were compacted or deleted away"
	}
	return fmt.Sprintf("%s, %s to %s; history begins %s@%d: %s", n, historyWhen(c.First.Time), historyWhen(c.Last.Time), c.First.TopicPartition, c.First.Offset, begins)
}

func timesAre(logAppend bool) string {
	if logAppend {
		return "LogAppendTime (when the broker appended each record), as the topic's message.timestamp.type says"
	}
	return "CreateTime (when the worker committed)"
}

// writeHistoryJSON streams the history as one JSON object: the commits as
// read, then each stored key's summary and each topic-partition's bounds.
// Values are the stored bytes (numbers as stored), written by hand
// (jsonLines).
func writeHistoryJSON(req history.Request, read historyRead, w *pipeWriter) (*history.History, error) {
	var b []byte
	b = append(b, `{"connector":`...)
	b = appendJSONSafe(b, java.AppendJackson(nil, req.Connector))
	b = append(b, `,"commits":[`...)
	if err := w.writeSafe(b); err != nil {
		return nil, err
	}
	h, err := writeLines(read, nil, func() lineMaker { return &jsonLines{keys: map[*history.CopyHistory][]byte{}} }, w)
	if err != nil {
		return nil, err
	}
	b = append(b[:0], "],\n\"partitions\":["...)
	for i, c := range h.Copies {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{\"source_partition\":"...)
		b = appendRaw(b, []byte(c.Partition))
		b = append(b, `,"key":`...)
		b = appendKeyJSON(b, c.ID.Key)
		b = append(b, `,"topic":`...)
		b = java.AppendJackson(b, c.ID.Topic)
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(c.ID.Partition), 10)
		b = append(b, `,"copy":`...)
		b = java.AppendJackson(b, c.Copy)
		if c.Stray != "" {
			b = append(b, `,"stray":`...)
			b = java.AppendJackson(b, c.Stray)
		}
		b = append(b, `,"commits":`...)
		b = strconv.AppendInt(b, int64(c.Commits), 10)
		b = append(b, `,"tombstones":`...)
		b = strconv.AppendInt(b, int64(c.Tombstones), 10)
		b = append(b, `,"first":{`...)
		b = appendRef(b, c.First)
		b = append(b, `},"last":{`...)
		b = appendRef(b, c.Last)
		b = append(b, `},"history_complete":`...)
		b = strconv.AppendBool(b, c.Complete)
		b = append(b, '}')
	}
	// The bounds of the topic-partitions its keys are in.
	used := map[model.TopicPartition]bool{}
	for _, c := range h.Copies {
		used[c.ID.TopicPartition] = true
	}
	b = append(b, "],\n\"logs\":["...)
	i := 0
	for _, l := range h.Logs {
		if !used[l.TopicPartition] {
			continue
		}
		if i++; i > 1 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "\n{\"topic\":%s,\"partition\":%d,\"log_start\":%d,\"end\":%d,\"first_gap\":%d}", java.AppendJackson(nil, l.Topic), l.Partition, l.LogStart, l.End, l.FirstGap)
	}
	b = append(b, "]}\n"...)
	_, err = w.Write(text.JSONSafe(b))
	return h, err
}

// appendJSONSafe appends outside JSON text made safe (outputSafe).
// Escaping it apart from koff's ASCII around it changes nothing: JSONSafe
// and the output's guard look at one character at a time, and at runs of
// combining marks, which ASCII ends.
func appendJSONSafe(b, part []byte) []byte { return append(b, outputSafe(part)...) }

// outputSafe is outside JSON text as the output's guard would pass it:
// text.JSONSafe's escapes, then the guard's own (a raw carriage return,
// which JSON allows between tokens).
func outputSafe(part []byte) []byte { return text.SanitizeOutput(text.JSONSafe(part)) }

// appendRef writes a commit's place and time as JSON fields.
func appendRef(b []byte, c history.CommitRef) []byte {
	b = appendTimeJSON(b, c.Time, nil)
	b = append(b, `,"timestamp_type":"`...)
	b = append(b, history.TimestampType(c.LogAppendTime)...)
	b = append(b, `","topic":`...)
	b = java.AppendJackson(b, c.Topic)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(c.Partition), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, c.Offset, 10)
	return b
}

// refText is appendRef for a stream of commits, escaped: the topic's JSON and the
// time's text down to the second are made once for a run of commits that
// share them.
type refText struct {
	topic     string
	topicJSON []byte
	sec       int64
	secText   []byte // "2006-01-02T15:04:05." (nil: none yet)
	text      bool   // koff's text form (model.TimeText), not JSON's
}

func (r *refText) append(b []byte, c history.CommitRef) []byte {
	b = appendTimeJSON(b, c.Time, r)
	b = append(b, `,"timestamp_type":"`...)
	b = append(b, history.TimestampType(c.LogAppendTime)...)
	b = append(b, `","topic":`...)
	if r.topicJSON == nil || r.topic != c.Topic {
		r.topic, r.topicJSON = c.Topic, outputSafe(java.AppendJackson(nil, c.Topic))
	}
	b = append(b, r.topicJSON...)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(c.Partition), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, c.Offset, 10)
	return b
}

// appendTime is appendHistoryTime, the text up to the second made once
// per second.
func (r *refText) appendTime(b []byte, t time.Time) []byte {
	if sec := t.Unix(); r.secText == nil || sec != r.sec {
		full := appendHistoryTime(nil, t)
		if len(full) != len("2006-01-02T15:04:05.000Z") { // a year beyond 4 digits: as it is
			if r.text {
				return append(b, model.TimeText(t)...)
			}
			return append(b, full...)
		}
		r.sec, r.secText = sec, full[:len("2006-01-02T15:04:05.")]
		if r.text {
			r.secText[len("2006-01-02")] = ' '
		}
	}
	b = append(b, r.secText...)
	ms := t.Nanosecond() / 1e6
	b = append(b, byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	if r.text {
		return append(b, " UTC"...)
	}
	return append(b, 'Z')
}

// appendRaw writes stored JSON as it is (numbers as stored), a value that
// is not JSON as a string, and a tombstone as null.
func appendRaw(b, v []byte) []byte {
	switch {
	case v == nil:
		return append(b, "null"...)
	case java.Valid(v):
		return append(b, v...)
	}
	return java.AppendJackson(b, string(v))
}

// printSinkHistory says what Kafka keeps of a sink's commits: only the
// latest per partition.
func printSinkHistory(w io.Writer, name, group string, poll model.GroupPoll, asJSON bool) error {
	sort.Slice(poll.Partitions, func(i, j int) bool {
		a, b := poll.Partitions[i], poll.Partitions[j]
		return a.Topic < b.Topic || a.Topic == b.Topic && a.Partition < b.Partition
	})
	const plain = "Kafka keeps only the latest committed offset of each partition of a consumer group: there is no history of a sink's commits to show. Its data topics' record times are what set --to-datetime uses."
	if asJSON {
		var b []byte
		b = append(b, `{"connector":`...)
		b = java.AppendJackson(b, name)
		b = append(b, `,"sink":true,"group":`...)
		b = java.AppendJackson(b, group)
		b = append(b, `,"note":`...)
		b = java.AppendJackson(b, plain)
		b = append(b, `,"committed":[`...)
		for i, p := range poll.Partitions {
			if i > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"topic":%s,"partition":%d,"offset":%d}`, java.AppendJackson(nil, p.Topic), p.Partition, p.Committed)
		}
		b = append(b, "]}\n"...)
		_, err := w.Write(text.JSONSafe(b))
		return err
	}
	fmt.Fprintf(w, "%s is a sink connector (group %s). %s\n", field(name), field(group), plain)
	if len(poll.Partitions) > 0 {
		fmt.Fprintln(w, "Its latest commits:")
	}
	for _, p := range poll.Partitions {
		fmt.Fprintf(w, "  %s  committed %d\n", field(p.TopicPartition.String()), p.Committed)
	}
	return nil
}
