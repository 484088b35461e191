package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/spf13/pflag"

	"koff/edit"
	"koff/model"
	"koff/model/java"
	"koff/model/text"
)

// The history's fast path (issue 23: a million commits in kcat's time)
// must print what it printed before, byte for byte. history-today is koff
// history with the writers as they were before it: the test runs both on
// one topic of strays, tombstones, koff's own edits, outside bytes a
// terminal would act on, and partitions of several fetches each, read
// ahead.
func init() {
	register(&command{
		name:   "history-today",
		hidden: true,
		flags: func(fs *pflag.FlagSet) any {
			o := &historyOptions{}
			fs.StringVar(&o.partition, "partition", "", "")
			fs.StringVar(&o.since, "since", "", "")
			fs.StringVar(&o.until, "until", "", "")
			fs.StringVarP(&o.output, "output", "o", "text", "")
			fs.StringVar(&o.group, "group", "", "")
			return o
		},
		run: runTodaysHistory,
	})
}

// produceMany writes records of one key to one partition in one request,
// stamped a millisecond apart from at: a partition of several fetches.
func produceMany(t *testing.T, addr string, partition int, key string, values []string, at time.Time) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 30 * time.Second}
	for len(values) > 0 {
		n := min(len(values), 2000)
		recs := make([]kafkago.Record, n)
		for i, v := range values[:n] {
			recs[i] = kafkago.Record{Key: kafkago.NewBytes([]byte(key)), Value: kafkago.NewBytes([]byte(v)), Time: at}
			at = at.Add(time.Millisecond)
		}
		values = values[n:]
		res, err := c.Produce(context.Background(), &kafkago.ProduceRequest{
			Topic: "connect-offsets", Partition: partition, RequiredAcks: kafkago.RequireAll, Records: kafkago.NewRecordReader(recs...),
		})
		if err == nil {
			err = res.Error
		}
		if err != nil {
			t.Fatalf("produce %s: %v", key, err)
		}
	}
}

func TestHistoryPrintsWhatItPrintedBefore(t *testing.T) {
	addr := offsetsBroker(t)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	live := `["pg",{"server":"db"}]`
	// Two partitions of about 3 MB each: several fetches, read ahead.
	for i, key := range []string{live, `["pg",{"server":"big"}]`} {
		values := make([]string, 12000)
		for j := range values {
			values[j] = fmt.Sprintf(`{"lsn":%d,"txId":%d,"ts_usec":%d,"pad":"%s"}`, uint64(1)<<62+uint64(j), j, 1796297652877000+j, strings.Repeat("x", 180))
		}
		produceMany(t, addr, java.PartitionFor([]byte(key), 25), key, values, t0.Add(time.Duration(i)*time.Minute))
	}
	commitAt(t, addr, "connect-offsets", live, "", t0.Add(time.Hour))
	commitAt(t, addr, "connect-offsets", live, `{"lsn":18446744073709551616}`, t0.Add(2*time.Hour))
	// Strays: other bytes, another partition; outside bytes in keys and values.
	commitAt(t, addr, "connect-offsets", `["pg", {"server":"db"}]`, `{"lsn":3}`, t0.Add(3*time.Hour))
	commitTo(t, addr, "connect-offsets", 3, live, `{"lsn":4}`, t0.Add(4*time.Hour))
	marks := "e" + strings.Repeat("\u0301", 12)
	commitAt(t, addr, "connect-offsets", `["pg",{"server":"`+marks+`"}]`, "{\"lsn\":\"\x1b[31mred\"}", t0.Add(5*time.Hour))
	commitAt(t, addr, "connect-offsets", `["pg",{"server":"`+marks+`"}]`, "{\"lsn\":\"\u202e\",\"bad\":\"\xff\",\"m\":\""+marks+"\"}", t0.Add(5*time.Hour+time.Second))
	commitAt(t, addr, "connect-offsets", `["pg",{"server":"bad"}]`, "not json \x07\xff\r\n", t0.Add(5*time.Hour))
	commitAt(t, addr, "connect-offsets", `["pg",{"server":"bad"}]`, "", t0.Add(6*time.Hour))
	commitAt(t, addr, "connect-offsets", `["other",{"server":"db"}]`, `{"lsn":3}`, t0)
	// koff's own edit, in the audit log.
	if _, errs, code := koff(t, "set", "pg", "-b", addr, "--partition", `{"server":"db"}`, "--offset", `{"lsn":5}`, "--yes", "--audit-log", audit); code != 0 {
		t.Fatalf("set: %s", errs)
	}
	for _, args := range [][]string{
		{"-o", "json"},
		{},
		{"-o", "json", "--since", t0.Add(90 * time.Minute).Format(time.RFC3339), "--until", t0.Add(5 * time.Hour).Format(time.RFC3339)},
		{"--partition", `{"server":"db"}`},
	} {
		args = append([]string{"pg", "-b", addr, "--audit-log", audit}, args...)
		now, errNow, codeNow := koff(t, append([]string{"history"}, args...)...)
		then, errThen, codeThen := koff(t, append([]string{"history-today"}, args...)...)
		if codeNow != 0 || codeNow != codeThen || errNow != errThen {
			t.Fatalf("history %v: exit %d (before %d): %s", args, codeNow, codeThen, errNow)
		}
		if now != then {
			i := 0
			for i < len(now) && i < len(then) && now[i] == then[i] {
				i++
			}
			t.Errorf("history %v prints other bytes than before, from byte %d:\nnow:    %q\nbefore: %q", args, i, now[i:min(len(now), i+300)], then[i:min(len(then), i+300)])
		}
		if !strings.Contains(strings.Join(args, " "), "--until") && !strings.Contains(now, "← koff set") && !strings.Contains(now, `"koff_edit":{`) {
			t.Errorf("history %v does not mark koff's edit", args)
		}
	}
}

func runTodaysHistory(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*historyOptions)
	if len(args) != 1 {
		return usagef("history needs exactly one CONNECTOR")
	}
	if o.output != "text" && o.output != "json" {
		return usagef("-o must be text or json, got %q", o.output)
	}
	req := edit.HistoryRequest{Connector: args[0]}
	var err error
	if o.partition != "" {
		p, err := edit.ParsePartition(o.partition)
		if err != nil {
			return usagef("--partition: %v", err)
		}
		req.Partitions = []java.Object{p}
	}
	if req.Since, req.Until, err = timeRange(o.since, o.until, env); err != nil {
		return err
	}
	s, err := openEditSession(g, env)
	if err != nil {
		return err
	}
	defer s.close()
	if poll, group, isSink, err := s.ed.SinkCommits(s.ctx, req.Connector, o.group); err != nil {
		return err
	} else if isSink {
		return printSinkHistory(env.Stdout, req.Connector, group, poll, o.output == "json")
	}
	if err := s.ed.RequireSource(s.ctx, req.Connector, req.Partitions); err != nil {
		return err
	}
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	var h *edit.History
	if o.output == "json" {
		h, err = todaysHistoryJSON(s.ctx, s.ed, req, out)
	} else {
		h, err = todaysHistoryText(s.ctx, s.ed, req, out)
	}
	if ferr := out.Flush(); err == nil {
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

func todaysHistoryJSON(ctx context.Context, ed *edit.Editor, req edit.HistoryRequest, w io.Writer) (*edit.History, error) {
	write := func(b []byte) { w.Write(text.JSONSafe(b)) }
	var b []byte
	b = append(b, `{"connector":`...)
	b = java.AppendJackson(b, req.Connector)
	b = append(b, `,"commits":[`...)
	write(b)
	n := 0
	keys := map[string][]byte{} // each key as JSON with its partition map, made once
	h, err := ed.ReadHistory(ctx, req, func(c *edit.Commit) error {
		b = b[:0]
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, "\n{"...)
		b = todaysRef(b, edit.CommitRef{TopicPartition: c.ID.TopicPartition, Offset: c.Offset, Time: c.Time, LogAppendTime: c.LogAppendTime})
		k, ok := keys[c.ID.Key]
		if !ok {
			k = java.AppendJackson(nil, c.ID.Key)
			k = append(k, `,"source_partition":`...)
			k = appendRaw(k, []byte(c.Partition))
			keys[c.ID.Key] = k
		}
		b = append(b, `,"key":`...)
		b = append(b, k...)
		b = append(b, `,"copy":"`...)
		b = append(b, c.Copy...)
		b = append(b, `","value":`...)
		b = appendRaw(b, c.Value)
		if c.Edit != nil {
			e, _ := json.Marshal(c.Edit)
			b = append(append(b, `,"koff_edit":`...), e...)
		}
		if c.Koff {
			b = append(b, `,"koff_header":true`...)
		}
		b = append(b, '}')
		write(b)
		return nil
	})
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
		b = java.AppendJackson(b, c.ID.Key)
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
		b = todaysRef(b, c.First)
		b = append(b, `},"last":{`...)
		b = todaysRef(b, c.Last)
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
	write(b)
	return h, nil
}

func todaysRef(b []byte, c edit.CommitRef) []byte {
	b = append(b, `"time":"`...)
	b = appendHistoryTime(b, c.Time)
	b = append(b, `","timestamp_type":"`...)
	b = append(b, edit.TimestampType(c.LogAppendTime)...)
	b = append(b, `","topic":`...)
	b = java.AppendJackson(b, c.Topic)
	b = append(b, `,"partition":`...)
	b = strconv.AppendInt(b, int64(c.Partition), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, c.Offset, 10)
	return b
}

func todaysHistoryText(ctx context.Context, ed *edit.Editor, req edit.HistoryRequest, w io.Writer) (*edit.History, error) {
	fmt.Fprintf(w, "%-27s  %-28s  %-5s  %s  %s\n", "TIME", "RECORD", "COPY", "PARTITION", "VALUE")
	h, err := ed.ReadHistory(ctx, req, func(c *edit.Commit) error {
		value := "(tombstone)"
		if c.Value != nil {
			value = jsonField(string(c.Value))
		}
		rec := fmt.Sprintf("%s@%d", c.ID.TopicPartition, c.Offset)
		fmt.Fprintf(w, "%-27s  %-28s  %-5s  %s  %s%s\n", historyTime(c.Time), field(rec), c.Copy, jsonField(c.Partition), value, editMark(c))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(h.Copies) > 0 {
		fmt.Fprintln(w, "\nWhere each partition's history begins:")
	}
	for _, c := range h.Copies {
		fmt.Fprintf(w, "  %s  %s  %s: %s\n", jsonField(c.Partition), field(c.ID.TopicPartition.String()), c.Copy, copySummary(c))
		if c.Copy == edit.CopyStray && c.Stray != "" {
			fmt.Fprintf(w, "      stray: %s\n", noteField(c.Stray))
		}
	}
	fmt.Fprintf(w, "%d commits shown. Times are %s.\n", h.Shown, timesAre(h.LogAppendTime))
	return h, nil
}
