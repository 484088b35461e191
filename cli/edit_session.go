package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/pflag"

	"koff/connect"
	"koff/edit"
	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/history"
	"koff/edit/plan"
	"koff/kafka"
	"koff/model"
	"koff/model/store"
	"koff/model/text"
)

// writeFlags are the flags every writing command takes.
type writeFlags struct {
	dryRun bool
	yes    bool
}

// writes lets the command line find the write flags of any command's
// options (refuseReadOnly).
func (w *writeFlags) writes() *writeFlags { return w }

// refuseReadOnly refuses a command that writes, read-only, before
// anything else can fail: the refusal names its cause. A dry run writes
// nothing, and still prints its plan.
func (g *Globals) refuseReadOnly(command string, opts any) error {
	if !g.ReadOnly {
		return nil
	}
	if w, ok := opts.(interface{ writes() *writeFlags }); ok && !w.writes().dryRun {
		return fmt.Errorf("%w (%s): nothing written; --dry-run previews the plan", apply.ErrReadOnly, g.readOnlyCause())
	}
	if command == "stop" || command == "resume" {
		return fmt.Errorf("%w (%s): not %s", apply.ErrReadOnly, g.readOnlyCause(), map[string]string{"stop": "stopped", "resume": "resumed"}[command])
	}
	return nil
}

// readOnlyCause says why koff is read-only: the flag, or the context.
func (g *Globals) readOnlyCause() string {
	if !g.readOnlyFlag && g.Context != "" {
		return "context " + g.Context + " is read-only in " + g.contextFile
	}
	return "started with --read-only"
}

// nameFlags say that an unknown name is meant (--create) and, for a sink
// without Connect's REST API, which consumer group is its (--group).
type nameFlags struct {
	create bool
	group  string
}

func addNameFlags(fs *pflag.FlagSet, n *nameFlags, group bool) {
	fs.BoolVar(&n.create, "create", false, "the connector or partition is new: write offsets for a name koff has never seen (no offsets, no consumer group, not in Connect), or a partition the connector never had (for a sink, one its topic has); without it either is refused as a typo")
	if group {
		fs.StringVar(&n.group, "group", "", "sink: its consumer group, when Connect's REST API is not there to say (a consumer.override.group.id names another group than connect-NAME)")
	}
}

func addWriteFlags(fs *pflag.FlagSet, w *writeFlags) {
	fs.BoolVar(&w.dryRun, "dry-run", false, "print the plan and write nothing")
	fs.BoolVarP(&w.yes, "yes", "y", false, "apply without asking (needed when stdin is not a terminal)")
}

// editSession is a live view of the offsets topics plus an Editor on them:
// planning needs the current offsets, and verifying needs the tailer still
// running when the write lands.
type editSession struct {
	g      *Globals
	env    Env
	store  *store.Store
	rest   *connect.Client
	ed     *edit.Editor
	ctx    context.Context
	cancel context.CancelFunc
	done   <-chan struct{}

	// SIGINT and SIGTERM: before the first write they end the command;
	// while writing, the produce request in flight finishes, the rest is
	// not sent, and the audit log records what was written (a second
	// signal gives up waiting for verification).
	writing   atomic.Bool
	interrupt chan struct{}
	stopOnce  sync.Once
	sigs      chan os.Signal
	// progressSecs: the watch's countdown on a terminal's stderr
	// (watch_progress.go).
	progressSecs int

	// tapped: the first read was sessionOptions.tap's, and it read every
	// offsets topic.
	tapped bool

	// others are the other contexts' clusters a move (or its undo) works
	// on, opened when first asked (elsewhere.go).
	others *otherClusters
}

// sessionReadBound bounds an edit session's first read of the offsets
// topics (a test shortens it).
var sessionReadBound = 60 * time.Second

func openEditSession(g *Globals, env Env) (*editSession, error) {
	return openSession(g, env, sessionOptions{})
}

// sessionOptions say how an edit session first reads the offsets topics.
type sessionOptions struct {
	// oneShot reads the Store as koff get does (store.StoreOptions
	// OneShot, kafka.TailerOptions Latest): what a task reads, every flag
	// and each key's last updates are the same, at a third of the cost;
	// only the dashboard reads what it leaves out (flush events, gaps).
	oneShot bool
	// tap, when set, makes the first read a history read whose records
	// go to the tap it returns, and which loads the Store as it goes: one
	// read of the topics for both (koff history, koff set --to-datetime).
	// The Tailer goes on from where it ended. If it fails, the Tailer
	// reads from scratch (and says what is wrong) and tapped is false.
	tap func(context.Context, *edit.Editor) history.Tap
}

func openSession(g *Globals, env Env, o sessionOptions) (*editSession, error) {
	if err := g.needBootstrap(); err != nil {
		return nil, err
	}
	// Its plans check their new offsets with the resume check's flags: a
	// pass file others can read stops it as it stops koff check.
	if _, err := g.resumeChecker(); err != nil {
		return nil, err
	}
	rest, err := g.connectClient()
	if err != nil {
		return nil, err
	}
	if rest != nil {
		// Connectors with their own offsets.storage.topic are edited there:
		// read those topics too.
		conns, err := rest.Connectors(env.Context)
		if err != nil {
			return nil, err
		}
		for _, c := range conns {
			if t := strings.TrimSpace(c.Info.Config["offsets.storage.topic"]); t != "" && !contains(g.OffsetsTopics, t) {
				g.OffsetsTopics = append(g.OffsetsTopics, t)
			}
		}
	}
	ctx, cancel := context.WithCancel(env.Context)
	s := &editSession{g: g, env: env, store: store.NewStore(store.StoreOptions{OneShot: o.oneShot}), rest: rest, ctx: ctx, cancel: cancel,
		interrupt: make(chan struct{}), sigs: make(chan os.Signal, 2)}
	signal.Notify(s.sigs, syscall.SIGINT, syscall.SIGTERM)
	go s.watchSignals()
	// The config topic first: it names connectors' own offsets topics,
	// which are read too, and it stays live for their target states.
	if cf := startConfigFeed(ctx, g, s.store); cf != nil {
		if err := warnConfig(env, cf.ready(ctx)); err != nil {
			signal.Stop(s.sigs)
			cancel()
			return nil, err
		}
	}
	for _, t := range ownTopics(s.store) {
		if !contains(g.OffsetsTopics, t) {
			g.OffsetsTopics = append(g.OffsetsTopics, t)
		}
	}
	topics := g.OffsetsTopics
	s.ed = g.newEditor(s.store, func() []string { return topics }, rest, osUser(env), g.auditPath(env))
	s.ed.Interrupt = s.interrupt
	s.others = &otherClusters{g: g, env: env, interrupt: s.interrupt}
	s.ed.Elsewhere = s.others.editor
	latest := 0
	if o.oneShot {
		latest = s.store.History()
	}
	var from map[model.TopicPartition]int64
	// One bound for the whole first read, the history's and the Tailer's:
	// a broker that answers nothing is one line, not a hang per step.
	start := time.Now()
	readBound := sessionReadBound
	if o.tap != nil {
		// What the tap reads first (the audit log's edits of this cluster,
		// whose id asks the brokers) is within the same bound.
		tapCtx, tapCancel := context.WithTimeout(ctx, readBound)
		tap := o.tap(tapCtx, s.ed)
		tapCancel()
		from, s.tapped = s.readTapped(tap, latest, readBound-time.Since(start))
		if !s.tapped && time.Since(start) >= readBound {
			signal.Stop(s.sigs)
			cancel()
			return nil, fmt.Errorf("timed out after %s reading the history of %s", waited(start), strings.Join(g.OffsetsTopics, ", "))
		}
	}
	t, done := startTailerFrom(ctx, g, s.store, latest, from)
	s.done = done
	if err := waitCaughtUp(ctx, g, t, max(readBound-time.Since(start), time.Second)); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// readTapped reads every offsets topic into tap, loading the Store, and
// says where each partition's read ended. When it fails the Store is
// emptied, for the Tailer to read from scratch.
func (s *editSession) readTapped(tap history.Tap, latest int, bound time.Duration) (map[model.TopicPartition]int64, bool) {
	read := historyReader(s.g.kafkaConfig(), &kafka.HistoryLoad{Handler: s.store, Latest: latest})
	from := map[model.TopicPartition]int64{}
	ctx, cancel := context.WithTimeout(s.ctx, bound)
	defer cancel()
	for _, topic := range s.g.OffsetsTopics {
		logs, err := read(ctx, topic, tap.Keep, tap.Add)
		if err != nil {
			s.store.Reset()
			return nil, false
		}
		tap.Read(logs)
		for _, l := range logs {
			from[l.TopicPartition] = l.End
		}
	}
	return from, true
}

func (s *editSession) watchSignals() {
	for {
		select {
		case <-s.ctx.Done():
			return
		case sig := <-s.sigs:
			if !s.writing.Load() {
				// Nothing written yet (planning, or at the prompt): say
				// so, and die of the signal as if koff had not caught it.
				fmt.Fprintln(s.env.Stderr, "\nkoff: interrupted before writing: nothing was written")
				signal.Stop(s.sigs)
				s.cancel()
				if p, err := os.FindProcess(os.Getpid()); err == nil {
					_ = p.Signal(sig)
				}
				return
			}
		}
		select {
		case <-s.interrupt:
			s.cancel() // the second signal: stop waiting
			return
		default:
			s.stopOnce.Do(func() { close(s.interrupt) })
		}
	}
}

// editWatchLimit caps how long an edit is watched after its read-back
// (apply.WatchCap when zero); the package's tests shorten it.
var editWatchLimit time.Duration

// newEditor is the edit pipeline every command, the dashboard and each
// koff serve session write through.
func (g *Globals) newEditor(offsets edit.Offsets, topics func() []string, rest *connect.Client, user, auditLog string) *edit.Editor {
	ed := &edit.Editor{
		Store:       offsets,
		Kafka:       g.kafkaConfig(),
		Bootstrap:   g.Bootstrap,
		TopicSource: topics,
		ReadOnly:    g.ReadOnly,
		User:        user,
		ReadOnlyCause: func() string {
			if g.ReadOnly {
				return g.readOnlyCause()
			}
			return ""
		}(),
		Audit:         &audit.Log{Path: auditLog},
		FlushInterval: g.FlushInterval,
		WatchLimit:    editWatchLimit,
		Cmd:           plan.CommandLine{Globals: g.shownGlobals(rest)},
		Resume:        g.planResume(),
		History:       historyReader(g.kafkaConfig(), nil),
		HistoryFrom:   historyFromReader(g.kafkaConfig()),
	}
	if rest != nil { // a nil *connect.Client in the interface would not be nil
		ed.REST = rest
	}
	if c, ok := offsets.(plan.ConnectConfigs); ok {
		ed.Configs = c
	}
	// What the worker writes for koff's REST edits is no flush of the
	// connector (koff_writes.go).
	if s, ok := offsets.(*store.Store); ok && rest != nil {
		ed.REST = announcingREST{Client: rest, store: s, topics: topics}
	}
	return ed
}

func (s *editSession) close() {
	if s.others != nil {
		s.others.close()
	}
	signal.Stop(s.sigs)
	s.cancel()
	<-s.done
}

func (g *Globals) auditPath(env Env) string {
	if g.AuditLog != "" {
		return g.AuditLog
	}
	return audit.DefaultPath(env.Getenv)
}

func osUser(env Env) string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return env.Getenv("USER")
}

var _ kafka.Handler = (*store.Store)(nil)

// runPlans prints the plans, checks their preconditions, asks for
// confirmation, applies them and reports each result.
func (s *editSession) runPlans(plans []*plan.Plan, w writeFlags) error {
	for _, p := range plans {
		printPlan(s.env.Stdout, p)
	}
	for _, p := range plans {
		// A dry run writes nothing, so read-only koff may preview; every
		// other precondition is checked as a real run would.
		check := s.ed.Check
		if w.dryRun {
			check = s.ed.CheckPreview
		}
		if err := check(s.ctx, p); err != nil {
			// A dry run shows a moment of a live connector: that it moved
			// on since is news, not a failure; a real run plans again.
			var conflict *apply.ConflictError
			if w.dryRun && errors.As(err, &conflict) {
				fmt.Fprintf(s.env.Stdout, "  note: %s\n", strings.TrimSuffix(err.Error(), "; review and try again"))
				continue
			}
			return err
		}
	}
	if w.dryRun {
		if s.ed.ReadOnly {
			fmt.Fprintln(s.env.Stdout, "dry run: nothing written (read-only: a real run would be refused)")
		} else {
			fmt.Fprintln(s.env.Stdout, "dry run: nothing written")
		}
		return nil
	}
	if !w.yes {
		if err := confirm(s.env, plans); err != nil {
			return err
		}
	}
	var failed error
	s.ed.Progress = s.watchProgress()
	s.writing.Store(true)
	defer s.writing.Store(false)
	for _, p := range plans {
		if s.ctx.Err() != nil {
			return fmt.Errorf("%s: interrupted before writing: nothing was written", p.Connector)
		}
		start := time.Now()
		res, err := s.ed.Apply(s.ctx, p)
		s.endProgress()
		if err != nil {
			return fmt.Errorf("%s: %w", p.Connector, err)
		}
		fmt.Fprintln(s.env.Stdout, text.Sanitize(res.Summary()))
		if res.Message != "" {
			fmt.Fprintf(s.env.Stdout, "Connect: %s\n", text.Sanitize(res.Message))
		}
		if undo := res.UndoCommand(); undo != "" {
			fmt.Fprintf(s.env.Stdout, "  undo: %s\n", text.Sanitize(undo))
		}
		if !res.Verified && failed == nil {
			switch {
			case len(res.Lost) > 0:
				failed = fmt.Errorf("%s: a concurrent edit won; this edit is not in force", p.Connector)
			case len(res.Overwritten) > 0:
				failed = fmt.Errorf("%s: written, then overwritten by another writer", p.Connector)
			case res.Unwatched > 0:
				failed = fmt.Errorf("%s: written and read back, but not verified: the watch for a task's commit over it was interrupted", p.Connector)
			default:
				failed = fmt.Errorf("the write to %s was not read back: gave up after %s", p.Connector, waited(start))
			}
		}
	}
	return failed
}

// confirm asks on the terminal. Resetting a whole connector asks for its name.
func confirm(env Env, plans []*plan.Plan) error {
	in, ok := env.Stdin.(*os.File)
	if !ok || !term.IsTerminal(in.Fd()) {
		return usagef("refusing to write without confirmation: stdin is not a terminal (pass --yes, or --dry-run to preview)")
	}
	r := bufio.NewReader(env.Stdin)
	for _, p := range plans {
		if p.Kind == plan.KindResetAll {
			fmt.Fprintf(env.Stdout, "This deletes every offset of %s (%d partitions). Type the connector name to confirm: ", text.Sanitize(p.Connector), len(p.Changes))
			line, err := r.ReadString('\n')
			if strings.TrimSpace(line) != p.Connector {
				if err != nil && !errors.Is(err, io.EOF) {
					return err
				}
				return errors.New("not confirmed: nothing written")
			}
		}
	}
	fmt.Fprint(env.Stdout, "Apply? [y/N] ")
	line, _ := r.ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return errors.New("not confirmed: nothing written")
	}
	return nil
}

// printPlan shows old → new for every partition, where each record goes,
// the connector's state and the equivalent command line.
func printPlan(w io.Writer, p *plan.Plan) {
	n := len(p.Changes)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	to := ""
	if rw := p.Request.Rewind; rw != nil {
		to = " to " + rw.AtText()
	}
	fmt.Fprintf(w, "Plan: %s %d partition%s of %s%s\n", p.Kind, n, plural, field(p.Connector), to)
	fmt.Fprintf(w, "  state:  %s\n", field(p.StateText()))
	via := "offsets topic " + field(p.Topic)
	switch p.Path {
	case plan.PathREST:
		via = "Connect REST"
	case plan.PathGroup:
		via = "consumer group " + field(p.Group)
	}
	fmt.Fprintf(w, "  path:   %s (%s)\n", via, text.Sanitize(p.PathReason))
	if wt := p.WatchText(); wt != "" {
		fmt.Fprintf(w, "  verify: %s\n", text.Sanitize(wt))
	}
	printChanges(w, p, "  ")
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", text.Sanitize(warn))
	}
	fmt.Fprintf(w, "  command: %s\n", jsonField(p.Command))
}

// printChanges shows every partition's offset before → after and each
// record written, indented.
func printChanges(w io.Writer, p *plan.Plan, indent string) {
	for i, ch := range p.Changes {
		fmt.Fprintf(w, "%s%s\n%s    %s → %s\n", indent, jsonField(ch.PartitionJSON), indent, jsonField(valueText(ch.Before, "(none)")), jsonField(valueText(ch.After, "(deleted)")))
		if len(p.Sink) == len(p.Changes) {
			printSinkMove(w, p.Sink[i])
		}
		for _, wr := range ch.Writes {
			how := "new key"
			switch {
			case wr.Existing && wr.Before != nil:
				how = "existing key, exact bytes"
			case wr.Existing: // its offset was deleted: a tombstone is its latest record
				how = "deleted key, exact bytes"
			}
			fmt.Fprintf(w, "%s    write %s  %s (%s)\n", indent, field(wr.TopicPartition.String()), jsonField(string(wr.Key)), how)
		}
	}
}

// printSinkMove is what the dashboard's review shows of a sink change: the
// records skipped or replayed, and the lag after.
func printSinkMove(w io.Writer, c plan.SinkChange) {
	moved := c.Moved()
	if moved != "" {
		moved += " · "
	}
	fmt.Fprintf(w, "      %slag after %d\n", moved, c.Lag())
}

func valueText(b []byte, none string) string {
	if b == nil {
		return none
	}
	return string(b)
}

// groupPartitions lists the partitions of the given topics that a sink's
// group has committed offsets for.
func (s *editSession) groupPartitions(name, given string, topics []string) ([]model.TopicPartition, error) {
	group := "connect-" + name
	if given != "" {
		group = given
	} else if s.rest != nil {
		cfg, err := s.rest.ConnectorConfig(s.ctx, name)
		if err != nil {
			return nil, err
		}
		group = model.SinkGroupName(name, cfg)
	} else if c, ok := s.store.ConnectorConfig(name); ok && c.Config != nil {
		// The config topic names its consumer.override.group.id.
		group = model.SinkGroupName(name, c.Config)
	}
	polls, err := s.g.kafkaConfig().GroupPolls(s.ctx, []string{group})
	if err != nil {
		return nil, err
	}
	var out []model.TopicPartition
	for _, p := range polls {
		for _, gp := range p.Partitions {
			if contains(topics, gp.Topic) {
				out = append(out, gp.TopicPartition)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("group %s has no committed offsets in %s", group, strings.Join(topics, ", "))
	}
	return out, nil
}
