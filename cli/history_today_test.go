package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/spf13/pflag"

	"koff/edit"
	"koff/edit/history"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
	"koff/model/text"
)

// The history's fast path (a million commits in kcat's time) must print
// what the plain way prints, byte for byte. history-today is koff history
// written the plain way: every commit read, kept, put in time order by a
// stable sort (unless --order log), its columns as wide as the widest
// cell, laid out with fmt. The test runs both on one topic of strays,
// tombstones, koff's own edits, outside bytes a terminal would act on,
// values that are not JSON or not UTF-8, a record without a timestamp, and
// partitions of several fetches each, read ahead.
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
			fs.StringVar(&o.order, "order", "time", "")
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
	// Values a worker cannot read, or reads with whitespace between tokens;
	// a record without a timestamp; times that go back in one partition.
	odd := `["pg",{"server":"odd"}]`
	commitAt(t, addr, "connect-offsets", odd, "{\"lsn\":1,\r\"x\":\t2 }", t0.Add(7*time.Hour))
	commitAt(t, addr, "connect-offsets", odd, "{\"lsn\":\"\xfe\"}", t0.Add(6*time.Hour+30*time.Minute))
	commitAt(t, addr, "connect-offsets", odd, `{"lsn":2}`, time.UnixMilli(-1))
	commitAt(t, addr, "connect-offsets", "[\"pg\",{\"server\":\"\xff\"}]", `{"lsn":8}`, t0.Add(8*time.Hour))
	// koff's own edit, in the audit log.
	if _, errs, code := koff(t, "set", "pg", "-b", addr, "--partition", `{"server":"db"}`, "--offset", `{"lsn":5}`, "--yes", "--audit-log", audit); code != 0 {
		t.Fatalf("set: %s", errs)
	}
	for _, args := range [][]string{
		{"-o", "json"},
		{},
		{"-o", "json", "--since", t0.Add(90 * time.Minute).Format(time.RFC3339), "--until", t0.Add(5 * time.Hour).Format(time.RFC3339)},
		{"--partition", `{"server":"db"}`},
		{"--order", "log"},
		{"-o", "json", "--order", "log"},
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
		if slices.Contains(args, "json") && !json.Valid([]byte(now)) {
			t.Errorf("history %v is not valid JSON:\n%s", args, now)
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
	var h *history.History
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

// todaysCommit is a commit kept whole.
type todaysCommit struct {
	history.Commit
	value []byte
}

// todaysCommits reads every commit, kept, in the order asked: time, ties
// in the order read, or as read.
func todaysCommits(ctx context.Context, ed *edit.Editor, req history.Request) ([]todaysCommit, *history.History, error) {
	var all []todaysCommit
	h, err := ed.ReadHistory(ctx, req, func(c *history.Commit) error {
		all = append(all, todaysCommit{Commit: *c, value: append([]byte(nil), c.Value...)})
		if c.Value == nil {
			all[len(all)-1].value = nil
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if !req.ReadOrder {
		sort.SliceStable(all, func(i, j int) bool { return all[i].Time.UnixMilli() < all[j].Time.UnixMilli() })
	}
	for i := range all {
		all[i].Value = all[i].value
	}
	return all, h, nil
}

func todaysHistoryJSON(ctx context.Context, ed *edit.Editor, req history.Request, w io.Writer) (*history.History, error) {
	write := func(b []byte) { w.Write(text.JSONSafe(b)) }
	var b []byte
	b = append(b, `{"connector":`...)
	b = java.AppendJackson(b, req.Connector)
	b = append(b, `,"commits":[`...)
	write(b)
	all, h, err := todaysCommits(ctx, ed, req)
	if err != nil {
		return nil, err
	}
	for n, c := range all {
		b = b[:0]
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n{"...)
		b = todaysRef(b, history.CommitRef{TopicPartition: c.ID.TopicPartition, Offset: c.Offset, Time: c.Time, LogAppendTime: c.LogAppendTime})
		b = append(b, `,"key":`...)
		b = appendKeyJSON(b, c.ID.Key)
		b = append(b, `,"source_partition":`...)
		b = appendRaw(b, []byte(c.Partition))
		b = append(b, `,"copy":"`...)
		b = append(b, c.Copy...)
		b = append(b, `",`...)
		b = appendValueJSON(b, c.Value)
		if c.Edit != nil {
			e, _ := json.Marshal(c.Edit)
			b = append(append(b, `,"koff_edit":`...), e...)
		}
		if c.Koff {
			b = append(b, `,"koff_header":true`...)
		}
		b = append(b, '}')
		write(b)
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

func todaysRef(b []byte, c history.CommitRef) []byte {
	if c.Time.UnixMilli() == -1 {
		b = append(b, `"time":null`...)
	} else {
		b = append(b, `"time":"`...)
		b = append(b, c.Time.UTC().Format("2006-01-02T15:04:05.000Z")...)
		b = append(b, '"')
	}
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

func todaysHistoryText(ctx context.Context, ed *edit.Editor, req history.Request, w io.Writer) (*history.History, error) {
	all, h, err := todaysCommits(ctx, ed, req)
	if err != nil {
		return nil, err
	}
	recW, partW := len("RECORD"), len("PARTITION")
	for _, c := range all {
		recW = max(recW, utf8.RuneCountInString(field(fmt.Sprintf("%s@%d", c.ID.TopicPartition, c.Offset))))
		partW = max(partW, utf8.RuneCountInString(jsonField(c.Partition)))
	}
	fmt.Fprintf(w, "%-27s  %-*s  %-5s  %-*s  %s\n", "TIME", recW, "RECORD", "COPY", partW, "PARTITION", "VALUE")
	for _, c := range all {
		when := historyTime(c.Time)
		if c.Time.UnixMilli() == -1 {
			when = "(no timestamp)"
		}
		rec := fmt.Sprintf("%s@%d", c.ID.TopicPartition, c.Offset)
		fmt.Fprintf(w, "%-27s  %-*s  %-5s  %-*s  %s%s\n", when, recW, field(rec), c.Copy, partW, jsonField(c.Partition), historyValueText(c.Value), editMark(&c.Commit))
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
	order := "in time order"
	if req.ReadOrder {
		order = "each topic-partition's in log order"
	}
	fmt.Fprintf(w, "%d commits shown, %s. Times are %s.\n", h.Shown, order, timesAre(h.LogAppendTime))
	return h, nil
}
