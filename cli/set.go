package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"koff/edit"
	"koff/edit/history"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

type setOptions struct {
	writeFlags
	nameFlags
	partition, offset string
	// Sink strategies: new committed offsets for a sink's consumer group.
	toOffset   optionalInt
	toEarliest bool
	toLatest   bool
	toDatetime string
	shiftBy    optionalInt
	byDuration string
	fromFile   string
	topics     []string
	// ifNewer: what a source rewind does with a partition it cannot place
	// at --to-datetime (history.go, rewind.go).
	ifNewer string
}

func init() {
	register(&command{
		name:    "set",
		args:    "CONNECTOR --partition JSON --offset JSON | CONNECTOR --to-datetime T [--if-newer reset|oldest] | (sinks) --to-earliest|--to-latest|--to-offset N|--to-datetime T|--by-duration D|--shift-by N|--from-file CSV [--topic T[:P,P]]... [--dry-run] [--yes]",
		summary: "set offsets and verify them: a source partition's (Connect REST when possible, else the offsets topic), or a sink's committed offsets",
		flags: func(fs *pflag.FlagSet) any {
			o := &setOptions{}
			fs.StringVar(&o.partition, "partition", "", `source partition map, e.g. '{"server":"inventory"}' (any field order matches the stored key); for a sink '{"kafka_topic":"t","kafka_partition":0}'`)
			fs.StringVar(&o.offset, "offset", "", `new offset map, e.g. '{"lsn":123}'; for a sink '{"kafka_offset":42}'`)
			fs.Var(&o.toOffset, "to-offset", "sink: commit this offset")
			fs.BoolVar(&o.toEarliest, "to-earliest", false, "sink: commit the log start (reprocess everything retained)")
			fs.BoolVar(&o.toLatest, "to-latest", false, "sink: commit the log end (skip everything not yet consumed)")
			fs.StringVar(&o.toDatetime, "to-datetime", "", "source: each partition back to the value committed at or before this time (from the offsets topic's history); sink: commit the first offset at or after it (UTC unless a zone is given: '2026-11-29 08:00:00', 2026-11-29T03:00:00-05:00, now-2h, -30m, PT1H)")
			fs.StringVar(&o.ifNewer, "if-newer", "", "source --to-datetime: a partition first committed after the time, or whose retained history begins after it: reset (delete its offset) or oldest (its oldest retained commit); default: leave it alone")
			fs.Var(&o.shiftBy, "shift-by", "sink: move the committed offsets by ±N (e.g. 1 skips a poison record)")
			fs.StringVar(&o.byDuration, "by-duration", "", "sink: commit the first offset at or after this long ago (PT1H, P1DT12H: as kafka-consumer-groups)")
			fs.StringVar(&o.fromFile, "from-file", "", "sink: commit the offsets of a kafka-consumer-groups reset plan CSV (topic,partition,offset lines)")
			fs.StringArrayVar(&o.topics, "topic", nil, "sink: only the partitions of this topic the group committed, or T:0,2 for partitions 0 and 2 (repeatable)")
			addWriteFlags(fs, &o.writeFlags)
			addNameFlags(fs, &o.nameFlags, true)
			return o
		},
		run: runSet,
	})
}

func runSet(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*setOptions)
	if len(args) != 1 {
		return usagef("set needs exactly one CONNECTOR")
	}
	strategy, isSink, err := o.sinkStrategy(env)
	if err != nil {
		return err
	}
	if o.ifNewer != "" && o.toDatetime == "" {
		return usagef("--if-newer goes with --to-datetime")
	}
	if o.ifNewer != "" && o.ifNewer != string(plan.IfNewerReset) && o.ifNewer != string(plan.IfNewerOldest) {
		return usagef("--if-newer is reset or oldest, got %q", o.ifNewer)
	}
	if isSink {
		return runSetSink(g, o, args[0], strategy, env)
	}
	if len(o.topics) > 0 {
		return usagef("--topic goes with a sink strategy (--to-earliest, --to-latest, --to-offset, --to-datetime, --by-duration, --shift-by)")
	}
	if o.partition == "" || o.offset == "" {
		return usagef("set needs --partition and --offset, or a sink strategy")
	}
	part, err := plan.ParsePartition(o.partition)
	if err != nil {
		return usagef("--partition: %v", err)
	}
	off, isNull, err := plan.ParseOffset(o.offset)
	if err != nil {
		return usagef("--offset: %v", err)
	}
	if isNull {
		return usagef("--offset null deletes the offset: use koff reset %s --partition ...", args[0])
	}
	s, err := openEditSession(g, env)
	if err != nil {
		return err
	}
	defer s.close()
	p, err := s.ed.Plan(s.ctx, plan.Request{Connector: args[0], Kind: plan.KindSet, Create: o.create, Group: o.group, Items: []plan.Item{{Partition: part, Offset: off}}})
	if err != nil {
		return err
	}
	return s.runPlans([]*plan.Plan{p}, o.writeFlags)
}

// sinkStrategy reads the sink strategy flags; at most one may be given.
func (o *setOptions) sinkStrategy(env Env) (plan.SinkStrategy, bool, error) {
	var got []string
	var st plan.SinkStrategy
	if o.toOffset.set {
		if o.toOffset.n < 0 {
			return st, false, usagef("--to-offset must not be negative, got %d", o.toOffset.n)
		}
		got, st = append(got, "--to-offset"), plan.SinkStrategy{Kind: plan.SinkToOffset, Offset: o.toOffset.n}
	}
	if o.toEarliest {
		got, st = append(got, "--to-earliest"), plan.SinkStrategy{Kind: plan.SinkToEarliest}
	}
	if o.toLatest {
		got, st = append(got, "--to-latest"), plan.SinkStrategy{Kind: plan.SinkToLatest}
	}
	if o.toDatetime != "" {
		t, err := readTime("--to-datetime", o.toDatetime, time.Now(), env)
		if err != nil {
			return st, false, err
		}
		got, st = append(got, "--to-datetime"), plan.SinkStrategy{Kind: plan.SinkToTimestamp, Time: t}
	}
	if o.byDuration != "" {
		d, err := parseJavaDuration(o.byDuration)
		if err != nil {
			return st, false, usagef("--by-duration: %v", err)
		}
		if d < -model.ClockSkew { // a time after now, as every time koff reads
			return st, false, usagef("--by-duration %s is %s in the future: give a duration back from now, like PT1H", o.byDuration, model.Span(-d))
		}
		got, st = append(got, "--by-duration"), plan.SinkStrategy{Kind: plan.SinkToTimestamp, Time: time.Now().Add(-d)}
	}
	if o.fromFile != "" {
		group, offsets, err := resetFile(o.fromFile)
		if err != nil {
			return st, false, err
		}
		if group != "" && o.group != "" && group != o.group {
			return st, false, usagef("--from-file is for group %s, --group says %s", group, o.group)
		}
		if group != "" {
			o.group = group
		}
		if len(o.topics) > 0 || o.partition != "" {
			return st, false, usagef("--from-file names its partitions: no --topic or --partition with it")
		}
		got, st = append(got, "--from-file"), plan.SinkStrategy{Kind: plan.SinkExplicit, Offsets: offsets}
	}
	if o.shiftBy.set {
		if o.shiftBy.n == 0 {
			return st, false, usagef("--shift-by 0 changes nothing")
		}
		got, st = append(got, "--shift-by"), plan.SinkStrategy{Kind: plan.SinkShiftBy, Shift: o.shiftBy.n}
	}
	switch {
	case len(got) > 1:
		return st, false, usagef("choose one of %s", strings.Join(got, ", "))
	case len(got) == 0:
		return st, false, nil
	case o.offset != "":
		return st, false, usagef("%s and --offset do not go together", got[0])
	}
	return st, true, nil
}

func runSetSink(g *Globals, o *setOptions, name string, st plan.SinkStrategy, env Env) error {
	req := plan.SinkRequest{Connector: name, Kind: plan.KindSet, Strategy: st, Create: o.create, Group: o.group}
	var sinkPartErr error
	if o.partition != "" {
		p, err := plan.ParsePartition(o.partition)
		if err != nil {
			return usagef("--partition: %v", err)
		}
		tp, err := sinkTP(p)
		switch {
		case err != nil && o.toDatetime == "":
			return usagef("--partition: %v", err)
		case err != nil:
			sinkPartErr = usagef("--partition: %v", err) // unless a source's
		default:
			req.Partitions = []model.TopicPartition{tp}
		}
	}
	var opts sessionOptions
	var rewind plan.RewindRequest
	var rr *history.RewindRead
	rewinds := o.toDatetime != "" && len(o.topics) == 0
	if rewinds {
		var err error
		if rewind, err = plan.NewRewindRequest(name, st.Time, o.partition, plan.IfNewer(o.ifNewer)); err != nil {
			return usagef("%v", err)
		}
		rewind.Given = o.toDatetime
		// One read of the offsets topics loads the Store and a source's
		// history (a sink's name reads nothing of it).
		opts = sessionOptions{oneShot: true, tap: func(ctx context.Context, ed *edit.Editor) history.Tap {
			rr = history.StartRewind(rewind)
			ed.MarkEdits(ctx, rr)
			return rr
		}}
	}
	s, err := openSession(g, env, opts)
	if err != nil {
		return err
	}
	defer s.close()
	if rewinds {
		// A source connector is rewound from its offsets topic's history.
		if !s.tapped {
			rr = nil
		}
		if done, err := rewindSource(s, o, rewind, rr); done || err != nil {
			return err
		}
	}
	if sinkPartErr != nil {
		return sinkPartErr
	}
	if len(o.topics) > 0 && len(req.Partitions) == 0 {
		topics, parts, err := topicArgs(o.topics)
		if err != nil {
			return err
		}
		if len(topics) > 0 {
			tps, err := s.groupPartitions(name, o.group, topics)
			if err != nil {
				return err
			}
			parts = append(parts, tps...)
		}
		req.Partitions, req.Topics = uniqueTPs(parts), o.topics
	}
	p, err := s.ed.PlanSink(s.ctx, req)
	if err != nil {
		return err
	}
	if st.Kind == plan.SinkToTimestamp {
		fmt.Fprintf(s.env.Stdout, "Set %s's committed offsets to each partition's first record at or after %s\n", field(name), timeEcho(st.Time, env))
	}
	return s.runPlans([]*plan.Plan{p}, o.writeFlags)
}

// sinkTP reads Connect's sink partition shape.
func sinkTP(p java.Object) (model.TopicPartition, error) {
	topic, _ := p.Get("kafka_topic")
	part, _ := p.Get("kafka_partition")
	ts, ok := topic.(string)
	if !ok {
		return model.TopicPartition{}, fmt.Errorf(`a sink partition is {"kafka_topic":"t","kafka_partition":0}`)
	}
	var n int
	if _, err := fmt.Sscan(fmt.Sprint(part), &n); err != nil {
		return model.TopicPartition{}, fmt.Errorf(`a sink partition is {"kafka_topic":"t","kafka_partition":0}`)
	}
	return model.TopicPartition{Topic: ts, Partition: n}, nil
}

// optionalInt is an integer flag with no default: unset is "not given",
// not a number, so --help shows no made-up default such as -1.
type optionalInt struct {
	n   int64
	set bool
}

func (o *optionalInt) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatInt(o.n, 10)
}

func (o *optionalInt) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a whole number", s)
	}
	o.n, o.set = n, true
	return nil
}

func (o *optionalInt) Type() string { return "int" }

// uniqueTPs drops repeats: "--topic t --topic t:0" names t/0 once.
func uniqueTPs(tps []model.TopicPartition) []model.TopicPartition {
	seen := map[model.TopicPartition]bool{}
	var out []model.TopicPartition
	for _, tp := range tps {
		if !seen[tp] {
			seen[tp] = true
			out = append(out, tp)
		}
	}
	return out
}
