package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"koff/edit/audit"
	"koff/kafka"
	"koff/model"
	"koff/model/resume"
	"koff/model/store"
	"koff/model/text"
)

type statusOptions struct {
	output string
	watch  bool
	group  string
}

func init() {
	register(&command{
		name:    "status",
		args:    "[CONNECTOR...] [-o table|json] [--watch] [--group G]",
		summary: "flush lag of source connectors, consumer lag of sinks, state and tasks, and whether each resumes where its offsets say (koff check); exits 1 if a connector is stalled or a task failed, 4 if a connector's flush is unknown after 3× its interval",
		flags: func(fs *pflag.FlagSet) any {
			o := &statusOptions{}
			fs.StringVarP(&o.output, "output", "o", "table", "table or json")
			fs.BoolVarP(&o.watch, "watch", "w", false, "print again every --refresh until interrupted")
			fs.StringVar(&o.group, "group", "", sinkGroupFlagHelp)
			return o
		},
		run: runStatus,
	})
}

// errStalled and errFlushUnknown make `koff status` usable as a
// monitoring check: `koff status || page-someone`.
var (
	errStalled      = errors.New("stalled")
	errFlushUnknown = errors.New("flush unknown")
)

func runStatus(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*statusOptions)
	if o.output != "table" && o.output != "json" {
		return usagef("-o must be table or json, got %q", o.output)
	}
	if err := g.needBootstrap(); err != nil {
		return err
	}
	rest, err := g.connectClient()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(env.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if o.group != "" && len(args) != 1 {
		return usagef("--group names one sink's consumer group: name exactly one CONNECTOR")
	}
	// The resume check of every report (the RESUME column): its flags'
	// mistakes are refused before anything is read.
	ck, err := g.resumeChecker()
	if err != nil {
		return err
	}
	rp := newResumePoller(ck, g.Refresh)
	ob := observe(ctx, g, rest)
	defer ob.stop()
	if o.group != "" {
		ob.store.NameSinkGroup(args[0], o.group)
	}
	if err := waitCaughtUp(ctx, g, ob.tailer, 60*time.Second); err != nil {
		return err
	}
	warnedConfig := false
	for {
		if err := ob.refresh(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		// REST may have named connectors' own offsets topics: read them too.
		if err := waitSettled(ctx, ob.tailer, 30*time.Second); err != nil {
			return err
		}
		if e := restDown(ob.store); e != "" {
			fmt.Fprintf(env.Stderr, "koff: warning: %s: showing what Kafka knows (%s)\n", e, withoutREST(ob.store))
		}
		if ob.configWarn != "" && !warnedConfig {
			warnedConfig = true
			fmt.Fprintf(env.Stderr, "koff: warning: %s\n", ob.configWarn)
		}
		if o.group != "" {
			if err := restSinkGroup(ob.store, args[0], o.group); err != nil {
				return err
			}
		}
		// Once per report, as the live views check beside the Tailer: a
		// system that does not answer holds it up to --probe-timeout.
		ob.checkResume(ctx, rp)
		rows, err := statusRows(ob.store, args, g)
		if err != nil {
			return withRESTDown(ob.store, err)
		}
		warnLookAlike(env.Stderr, ob.store.ConnectorList(), args)
		now := time.Now()
		warnInterrupted(g, env, ob.tailer.ClusterID())
		if o.output == "json" {
			err = printStatusJSON(env.Stdout, ob.store, rows, g, now)
		} else {
			if o.watch {
				fmt.Fprintf(env.Stdout, "%s\n", model.TimeText(now))
			}
			err = printStatusTable(env.Stdout, ob.store, rows, g, now)
		}
		if err != nil {
			return err
		}
		if !o.watch {
			return statusVerdict(rows, g, now)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(g.Refresh):
		}
	}
}

// warnInterrupted says on stderr, loudly, that an edit of this cluster
// stopped part way and what to do about it: its partitions are neither all
// old nor all new.
func warnInterrupted(g *Globals, env Env, cluster string) {
	audit := &audit.Log{Path: g.auditPath(env)}
	eds, err := audit.Interrupted(cluster)
	if err != nil {
		fmt.Fprintf(env.Stderr, "koff: audit log: %v\n", err)
		return
	}
	for _, ed := range eds {
		fmt.Fprintf(env.Stderr, "koff: ⚠ %s\n", ed.Notice())
	}
}

func statusRows(store *store.Store, names []string, g *Globals) ([]model.ConnectorRow, error) {
	all := store.Connectors()
	sort.SliceStable(all, func(i, j int) bool { return all[i].ID.Name < all[j].ID.Name })
	if len(names) == 0 {
		return all, nil
	}
	var out []model.ConnectorRow
	for _, n := range names {
		found := false
		for _, r := range all {
			if r.ID.Name == n {
				out = append(out, r)
				found = true
			}
		}
		if !found {
			return nil, noOffsets(store, n, false, g)
		}
	}
	return out, nil
}

// statusVerdict is `koff status`'s exit: 1 for a stalled connector or a
// failed connector or task, else 4 for a connector whose flush is unknown
// after 3× its interval, else 0.
func statusVerdict(rows []model.ConnectorRow, g *Globals, now time.Time) error {
	var stalled, failed, unknown []string
	for _, r := range rows {
		if !r.Authoritative() {
			continue
		}
		if r.InREST && (r.REST.State == "FAILED" || failedTaskCount(r.REST) > 0) {
			failed = append(failed, r.ID.Name)
		}
		if r.Type != "source" {
			continue
		}
		switch f := r.Flush(now, g.FlushInterval); {
		case f.Status == model.FlushStalled:
			stalled = append(stalled, r.ID.Name)
		case f.UnknownTooLong():
			unknown = append(unknown, fmt.Sprintf("%s (%s)", r.ID.Name, f.Reason))
		}
	}
	var why []string
	if len(stalled) > 0 {
		why = append(why, strings.Join(stalled, ", "))
	}
	if len(failed) > 0 {
		why = append(why, "failed: "+strings.Join(failed, ", "))
	}
	switch {
	case len(why) > 0:
		return fmt.Errorf("%w: %s", errStalled, strings.Join(why, "; "))
	case len(unknown) > 0:
		return fmt.Errorf("%w after 3× its interval: %s", errFlushUnknown, strings.Join(unknown, ", "))
	}
	return nil
}

func failedTaskCount(c model.ConnectorState) int {
	n := 0
	for _, t := range c.Tasks {
		if t.State == "FAILED" {
			n++
		}
	}
	return n
}

// tasksOf is the TASKS cell: Connect's task states in brief.
func tasksOf(r model.ConnectorRow) string {
	if !r.InREST {
		return "-"
	}
	return r.REST.TaskSummary()
}

func stateOf(r model.ConnectorRow, now time.Time) string {
	switch {
	case r.Orphaned:
		return "orphaned"
	case r.InREST && r.RESTStale != "" && !r.RESTAt.IsZero():
		// REST is out of reach: the state it gave last, with its age.
		return r.REST.State + " (" + ageText(now.Sub(r.RESTAt)) + " ago)"
	case r.InREST:
		return r.REST.State
	case r.Target != "":
		// Without REST, what the config topic says it is meant to be.
		return "target " + r.Target
	}
	return "-"
}

func printStatusTable(out io.Writer, store *store.Store, rows []model.ConnectorRow, g *Globals, now time.Time) error {
	// A sink's rows are a line per partition: 100k lines are written a
	// buffer at a time, not a write each.
	w := bufio.NewWriterSize(out, 64<<10)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var sinks []model.ConnectorRow
	fmt.Fprintln(tw, "SOURCE\tSTATE\tTASKS\tOFFSETS TOPIC\tLAST FLUSH\tAGE\tINTERVAL\tFLUSH\tUNFLUSHED\tRESUME\tWHY")
	for _, r := range rows {
		if r.Type == "sink" {
			sinks = append(sinks, r)
			continue
		}
		f := r.Flush(now, g.FlushInterval)
		topic := field(r.ID.Topic)
		if !r.Authoritative() {
			topic += " (secondary)"
		}
		last, age := "-", "-"
		if !f.Last.IsZero() {
			last, age = model.TimeText(f.Last), ageText(f.Age)
		}
		interval := "-"
		if f.Interval > 0 {
			interval = fmt.Sprintf("%s (%s)", intervalText(f.Interval), f.IntervalSource)
		}
		unflushed := "-"
		switch {
		case f.Unflushed == 0 && f.Shared == 0:
			unflushed = "0"
		case f.Unflushed >= 0:
			// At least: the worker commits only offsets of records its
			// producer acknowledged, so a crash may replay more (model.Unflushed).
			unflushed = fmt.Sprintf("≥%d", f.Unflushed)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", field(r.ID.Name), field(stateOf(r, now)), field(tasksOf(r)), topic, last, age, interval, strings.ToUpper(string(f.Status)), unflushed, resumeCell(r.Resume), field(f.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(sinks) == 0 {
		return w.Flush()
	}
	fmt.Fprintln(w)
	var table bytes.Buffer
	tw = tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SINK\tSTATE\tTASKS\tGROUP\tGROUP STATE\tMEMBERS\tLAG\tTREND\tCATCH-UP\tLAST COMMIT\tRESUME")
	for _, r := range sinks {
		s := r.Sink
		trend, catchUp, last := dash(s.Trend), "-", "-"
		if s.CatchUp > 0 {
			catchUp = ageText(s.CatchUp)
		}
		if !s.LastCommit.IsZero() {
			last = ageText(now.Sub(s.LastCommit)) + " ago"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", field(r.ID.Name), field(stateOf(r, now)), field(tasksOf(r)), field(s.Group), field(dash(s.State)), s.Members, s.TotalLag, trend, catchUp, last, resumeCell(r.Resume))
		for _, p := range store.SinkPartitions(s.Group) {
			// Every cell, even empty, keeps the columns aligned.
			fmt.Fprintf(tw, "  %s\t\t\t\tcommitted %d\tend %d\t%d\t\t\t\t%s\n", field(p.TopicPartition.String()), p.Committed, p.End, p.Lag, partitionResumeCell(p.Resume))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// tabwriter pads the last cell of a row too: each line without it.
	for rest := table.Bytes(); len(rest) > 0; {
		line, after, found := bytes.Cut(rest, []byte("\n"))
		w.Write(bytes.TrimRight(line, " "))
		if found {
			w.WriteByte('\n')
		}
		rest = after
	}
	return w.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// statusJSON is `koff status -o json`: one object per connector.
type statusJSON struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	State string `json:"state"`
	// TargetState is the config topic's target state (STARTED, PAUSED, STOPPED).
	TargetState string `json:"target_state,omitempty"`
	// StateAsOf is when REST gave State, while REST is out of reach.
	StateAsOf     *time.Time `json:"state_as_of,omitempty"`
	OffsetsTopic  string     `json:"offsets_topic,omitempty"`
	Authoritative bool       `json:"authoritative"`
	Orphaned      bool       `json:"orphaned"`
	Tasks         string     `json:"tasks,omitempty"`
	Flush         *flushJSON `json:"flush,omitempty"`
	Sink          *sinkJSON  `json:"sink,omitempty"`
	// Resume is the connector's resume check (koff check's connector
	// fields); absent on a copy its tasks do not read.
	Resume *statusResumeJSON `json:"resume,omitempty"`
}

type flushJSON struct {
	Last            *time.Time `json:"last"`
	AgeSeconds      *float64   `json:"age_seconds"`
	IntervalSeconds *float64   `json:"interval_seconds"`
	IntervalSource  string     `json:"interval_source"`
	Status          string     `json:"status"`
	Reason          string     `json:"reason"`
	// Unflushed: records written to the connector's own topics since its
	// last flush, a lower bound of what a crash would replay (README).
	Unflushed *int64 `json:"unflushed_records"`
	// SharedUnflushed: records since the last flush in topics other
	// source connectors write too, not in unflushed_records.
	SharedUnflushed *int64 `json:"shared_unflushed_records,omitempty"`
}

type sinkJSON struct {
	Group    string   `json:"group"`
	State    string   `json:"group_state"`
	Members  int      `json:"members"`
	TotalLag int64    `json:"total_lag"`
	Trend    string   `json:"trend"`
	CatchUp  *float64 `json:"catch_up_seconds"`
	// Why the group's history (commit ages, trend) last started over: a
	// new cluster, or a topic recreated.
	Reloaded   string          `json:"history_restarted,omitempty"`
	Partitions []sinkPartition `json:"partitions"`
}

type sinkPartition struct {
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
	Committed int64  `json:"committed"`
	End       int64  `json:"end"`
	Lag       int64  `json:"lag"`
	// Resume is the partition's resume state ("" when not checked).
	Resume resume.State `json:"resume,omitempty"`
}

func printStatusJSON(w io.Writer, store *store.Store, rows []model.ConnectorRow, g *Globals, now time.Time) error {
	out := struct {
		Time       time.Time    `json:"time"`
		Connectors []statusJSON `json:"connectors"`
	}{Time: now.UTC(), Connectors: []statusJSON{}}
	for _, r := range rows {
		s := statusJSON{Name: r.ID.Name, Type: r.Type, State: stateOf(r, time.Time{}), TargetState: r.Target, OffsetsTopic: r.ID.Topic, Authoritative: r.Authoritative(), Orphaned: r.Orphaned,
			Resume: resumeJSONOf(r.Resume)}
		if !r.InREST && !r.Orphaned {
			s.State = "-"
		}
		if r.InREST {
			s.Tasks = r.REST.TaskSummary()
		}
		if r.InREST && r.RESTStale != "" && !r.RESTAt.IsZero() {
			s.State = r.REST.State
			at := r.RESTAt.UTC()
			s.StateAsOf = &at
		}
		if r.Type == "sink" && r.Sink != nil {
			sj := &sinkJSON{Group: r.Sink.Group, State: r.Sink.State, Members: r.Sink.Members, TotalLag: r.Sink.TotalLag, Trend: r.Sink.Trend, Reloaded: r.Sink.ReloadReason, Partitions: []sinkPartition{}}
			if r.Sink.CatchUp > 0 {
				c := r.Sink.CatchUp.Seconds()
				sj.CatchUp = &c
			}
			for _, p := range store.SinkPartitions(r.Sink.Group) {
				sp := sinkPartition{Topic: p.Topic, Partition: p.Partition, Committed: p.Committed, End: p.End, Lag: p.Lag}
				if p.Resume != nil {
					sp.Resume = p.Resume.State
				}
				sj.Partitions = append(sj.Partitions, sp)
			}
			s.Sink = sj
		} else {
			f := r.Flush(now, g.FlushInterval)
			fj := &flushJSON{IntervalSource: f.IntervalSource, Status: string(f.Status), Reason: f.Reason}
			if !f.Last.IsZero() {
				last, age := f.Last.UTC(), f.Age.Seconds()
				fj.Last, fj.AgeSeconds = &last, &age
			}
			if f.Interval > 0 {
				iv := f.Interval.Seconds()
				fj.IntervalSeconds = &iv
			}
			if f.Unflushed >= 0 {
				u, sh := f.Unflushed, f.Shared
				fj.Unflushed, fj.SharedUnflushed = &u, &sh
			}
			s.Flush = fj
		}
		out.Connectors = append(out.Connectors, s)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(text.JSONSafe(b.Bytes())) // encoding/json leaves C1 and bidi controls raw
	return err
}

// waitSettled waits until the tailer has read topics added after start.
func waitSettled(ctx context.Context, t *kafka.Tailer, timeout time.Duration) error {
	start := time.Now()
	deadline := start.Add(timeout)
	for !t.Settled() {
		if time.Now().After(deadline) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("timed out after %s reading the offsets topics %s", waited(start), strings.Join(t.Topics(), ", "))
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				continue
			}
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
	return nil
}
