package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"koff/connect"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/model/text"
)

type getOptions struct {
	output  string
	deleted bool
	timeout time.Duration
	group   string
}

func init() {
	register(&command{
		name:    "get",
		args:    "[CONNECTOR...] [-o table|json] [--group G]",
		summary: "print connectors' offsets: sources from the offsets topics, sinks from their consumer groups",
		flags: func(fs *pflag.FlagSet) any {
			o := &getOptions{}
			fs.StringVarP(&o.output, "output", "o", "table", "table, or json: Connect's GET /connectors/NAME/offsets body (an object keyed by connector for several)")
			fs.BoolVar(&o.deleted, "deleted", false, "table: also list source partitions whose offset was deleted (tombstoned)")
			fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "give up reading after this long")
			fs.StringVar(&o.group, "group", "", sinkGroupFlagHelp)
			return o
		},
		run: runGet,
	})
}

// getOneShot reads into a one-shot Store (loadStoreWith); a test turns it
// off to compare with the full Store.
var getOneShot = true

func runGet(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*getOptions)
	if o.output != "table" && o.output != "json" {
		return usagef("-o must be table or json, got %q", o.output)
	}
	if o.timeout <= 0 {
		return usagef("--timeout must be positive, got %s", o.timeout)
	}
	if err := g.needBootstrap(); err != nil {
		return err
	}
	defer collectLate(env)()
	if o.group != "" && len(args) != 1 {
		return usagef("--group names one sink's consumer group: name exactly one CONNECTOR")
	}
	if o.output == "json" && o.group == "" && getOneShot && readOnce {
		store, bodies, err := loadReadOnce(g, env, o.timeout, true, true, args)
		if err != nil {
			return err
		}
		if bodies != nil {
			warnLookAlike(env.Stderr, readOnceRows(store, bodies), args)
			return printReadOnce(env, store, bodies, g, true, args, len(args) == 1)
		}
		// Every record read is in the Store: it prints.
		conns, err := selectConnectors(store, args, g, true)
		if err != nil {
			return withRESTDown(store, err)
		}
		warnLookAlike(env.Stderr, store.ConnectorList(), args)
		return printOffsetsJSON(env, store, conns, len(args) == 1)
	}
	store, err := loadStoreWith(g, env, o.timeout, true, getOneShot)
	if err != nil {
		return err
	}
	if o.group != "" {
		ctx, cancel := context.WithTimeout(env.Context, o.timeout)
		err := nameSinkGroup(ctx, g, store, args[0], o.group)
		cancel()
		if err != nil {
			return err
		}
	}
	conns, err := selectConnectors(store, args, g, true)
	if err != nil {
		return withRESTDown(store, err)
	}
	warnLookAlike(env.Stderr, store.ConnectorList(), args)
	if o.output == "json" {
		return printOffsetsJSON(env, store, conns, len(args) == 1)
	}
	return printOffsetsTable(env, store, conns, o.deleted)
}

// loadStore reads every offsets topic to its end into a new Store, with
// Connect's view (when --connect-url is given: connectors' own offsets
// topics, sink groups' names) and the sinks' consumer groups.
//
// With restOptional, a Connect that cannot be asked is a warning on
// stderr, and the Store holds what Kafka alone knows.
func loadStore(g *Globals, env Env, timeout time.Duration, restOptional bool) (*store.Store, error) {
	return loadStoreWith(g, env, timeout, restOptional, false)
}

// loadStoreWith is loadStore; a oneShot Store holds what get prints, not
// the dashboard's flush events and gaps (observeWith).
func loadStoreWith(g *Globals, env Env, timeout time.Duration, restOptional, oneShot bool) (*store.Store, error) {
	return loadStoreRead(g, env, timeout, restOptional, oneShot, nil)
}

// loadStoreRead is loadStoreWith, the offsets topics' records going to
// read until it gives up (observeRead).
func loadStoreRead(g *Globals, env Env, timeout time.Duration, restOptional, oneShot bool, read *store.OneShotRead) (*store.Store, error) {
	rest, err := g.connectClient()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(env.Context, timeout)
	defer cancel()
	// A step cut short by the deadline says how long the whole read took.
	fail := func(err error) error {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && !strings.HasPrefix(err.Error(), "timed out") {
			return fmt.Errorf("timed out after %s: %w", waited(start), err)
		}
		return err
	}
	ob := observeRead(ctx, g, rest, oneShot, read)
	defer ob.stop()
	if err := waitCaughtUp(ctx, g, ob.tailer, timeout); err != nil {
		return nil, fail(err)
	}
	if err := ob.readyConfigs(ctx); err != nil {
		return nil, fail(err)
	}
	if ob.configWarn != "" {
		fmt.Fprintf(env.Stderr, "koff: warning: %s\n", ob.configWarn)
	}
	if len(ownTopics(ob.store)) > 0 {
		ob.followOwnTopics()
		if err := waitSettled(ctx, ob.tailer, timeout); err != nil {
			return nil, fail(err)
		}
	}
	if ob.poller != nil {
		err := ob.poller.Once(ctx)
		switch {
		case err != nil && (!restOptional || ctx.Err() != nil || connect.IsMisconfigured(err)):
			return nil, fail(err)
		case err != nil:
			warnRESTDown(env, ob.store, err)
		default:
			ob.followOwnTopics()
			if err := waitSettled(ctx, ob.tailer, timeout); err != nil {
				return nil, fail(err)
			}
		}
	}
	if err := g.kafkaConfig().PollGroupsOnce(ctx, ob.store); err != nil {
		return nil, fail(err)
	}
	return ob.store, nil
}

// selected is one connector to print: its source offsets in one or more
// offsets topics, or its sink consumer group.
type selected struct {
	ids   []model.ConnectorID
	group string
	// other are offsets topics of the connector that its tasks do not
	// read: it has its own offsets.storage.topic (ConnectorOffsetBackingStore
	// then reads only that one).
	other map[string]bool
}

// selectConnectors picks the named connectors (all when none are named).
// With withEmpty, a connector Connect lists that has no offsets anywhere
// is picked too, with nothing in it: Connect's GET answers it with
// {"offsets":[]}.
func selectConnectors(store *store.Store, names []string, g *Globals, withEmpty bool) (map[string]*selected, error) {
	all := map[string]*selected{}
	for _, c := range store.ConnectorList() {
		s := all[c.ID.Name]
		if s == nil {
			s = &selected{}
			all[c.ID.Name] = s
		}
		switch {
		case c.Type == "sink" && c.Sink != nil:
			s.group = c.Sink.Group
		case c.ID.Topic != "":
			s.ids = append(s.ids, c.ID)
			if !c.Authoritative() {
				if s.other == nil {
					s.other = map[string]bool{}
				}
				s.other[c.ID.Topic] = true
			}
		}
	}
	inConnect := map[string]bool{}
	for n, s := range all {
		if len(s.ids) == 0 && s.group == "" {
			inConnect[n] = true
			if !withEmpty {
				delete(all, n) // REST lists it, but it has no offsets anywhere
			}
		}
	}
	if len(names) == 0 {
		return all, nil
	}
	out := map[string]*selected{}
	for _, n := range names {
		s, ok := all[n]
		if !ok {
			return nil, noOffsets(store, n, inConnect[n], g)
		}
		out[n] = s
	}
	return out, nil
}

func sortedNames(m map[string]*selected) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func rowsOf(store *store.Store, ids []model.ConnectorID) []model.PartitionRow {
	var rows []model.PartitionRow
	for _, id := range ids {
		rows = append(rows, store.Partitions(id)...)
	}
	return rows
}

// bodyOf makes the body of s, in buf's memory when it is big enough, and
// says whether it is known to be printable ASCII (text.PrintableASCII).
func bodyOf(store *store.Store, s *selected, buf []byte) ([]byte, bool) {
	if s.group != "" {
		return model.SinkOffsetsBody(store.SinkPartitions(s.group)), false
	}
	var read []model.ConnectorID
	for _, id := range s.ids {
		if !s.other[id.Topic] {
			read = append(read, id)
		}
	}
	return store.AppendOffsetsBodyChecked(buf[:0], read) // model.OffsetsBody of rowsOf(read), without the rows
}

// printOffsetsJSON writes Connect's GET offsets body for one connector, or an
// object keyed by connector name with that body as each value. Bytes are
// assembled by hand: encoding/json would HTML-escape the stored JSON.
func printOffsetsJSON(env Env, store *store.Store, conns map[string]*selected, single bool) error {
	names := sortedNames(conns)
	if single {
		names = names[:1]
	}
	// Bodies are made side by side, a few ahead of the one being written,
	// and their memory made the next ones once written: a cluster's can be
	// a hundred megabytes, which as new memory costs as much to fault in
	// as to fill.
	type made struct {
		body      []byte
		printable bool // known to be printable ASCII
	}
	bodies := make([]chan made, len(names))
	for i := range bodies {
		bodies[i] = make(chan made, 1)
	}
	ahead := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	free := make(chan []byte, cap(ahead))
	go func() {
		for i, n := range names {
			ahead <- struct{}{} // taken back once body i is written
			var buf []byte
			select {
			case buf = <-free:
			default:
			}
			go func() {
				b, printable := bodyOf(store, conns[n], buf)
				bodies[i] <- made{b, printable}
			}()
		}
	}()
	write, flush := jsonOutput(env)
	writeBodies(write, names, single, func(i int) {
		b := <-bodies[i]
		write(b.body, b.printable)
		select {
		case free <- b.body:
		default:
		}
		<-ahead
	})
	return flush()
}

// jsonOutput writes JSON text to stdout a buffer at a time: stored bytes,
// exactly, except what a terminal would act on. JSON allows DEL, C1 and
// bidi controls raw in strings, so they are written as \u escapes (the
// same value to any JSON reader). Each piece written is whole characters,
// so escaping piece by piece is escaping the whole. A piece of printable
// ASCII, nearly every one, is written past stdout's guard (safeWriter),
// which would leave it as it is; any other goes through both. printable
// says a piece is known to be printable ASCII (a body made so); the rest
// are checked.
func jsonOutput(env Env) (write func(p []byte, printable bool), flush func() error) {
	w, guard := env.Stdout, false
	if s, ok := w.(*safeWriter); ok {
		s.Flush()
		w, guard = s.w, true
	}
	out := bufio.NewWriterSize(w, 64<<10)
	write = func(p []byte, printable bool) {
		if !printable && !text.PrintableASCII(p) {
			if p = text.JSONSafe(p); guard {
				p = text.SanitizeOutput(p) // whole characters: JSONSafe's are UTF-8
			}
		}
		out.Write(p)
	}
	return write, out.Flush
}

// writeBodies writes the connectors names (sorted) as koff get -o json
// prints them: {"NAME":BODY,…}, or with single the one body alone, as
// Connect's GET answers it; body(i) writes the body of names[i].
func writeBodies(write func([]byte, bool), names []string, single bool, body func(i int)) {
	if single {
		body(0)
	} else {
		write([]byte{'{'}, true)
		for i, n := range names {
			if i > 0 {
				write([]byte{','}, true)
			}
			write(java.AppendJackson(nil, n), false)
			write([]byte{':'}, true)
			body(i)
		}
		write([]byte{'}'}, true)
	}
	write([]byte{'\n'}, true)
}

func printOffsetsTable(env Env, store *store.Store, conns map[string]*selected, deleted bool) error {
	out := bufio.NewWriterSize(env.Stdout, 64<<10)
	tw := newAlignedTable(7)
	tw.row("CONNECTOR", "PARTITION", "OFFSET", "TASK", "WHERE", "UPDATED", "FLAGS")
	var notes []string
	var c tableCells
	var reuse []model.PartitionRow
	var lives []model.PartitionID
	for _, n := range sortedNames(conns) {
		s := conns[n]
		if s.group == "" && len(s.ids) == 0 || s.group != "" && len(store.SinkPartitions(s.group)) == 0 {
			notes = append(notes, fmt.Sprintf("  %s: no offsets, so its tasks start without one (Connect's GET offsets is {\"offsets\":[]})", field(n)))
			continue
		}
		name := field(n)
		if s.group != "" {
			for _, r := range store.SinkPartitions(s.group) {
				tw.row(name, `{"kafka_topic":`+jsonField(string(java.AppendJackson(nil, r.Topic)))+`,"kafka_partition":`+strconv.Itoa(r.Partition)+"}",
					`{"kafka_offset":`+strconv.FormatInt(r.Committed, 10)+"}", "reads", "group "+field(s.group), "-", "lag "+strconv.FormatInt(r.Lag, 10))
			}
			continue
		}
		noted := map[string]bool{}
		var rows []model.PartitionRow
		if len(s.ids) == 1 {
			// In the memory of the connector before: not 300 MB of new
			// memory a million partitions.
			rows, lives = store.PartitionsIn(reuse, lives, s.ids[0])
			reuse = rows
		} else {
			rows = rowsOf(store, s.ids)
		}
		// A deleted live copy is listed when a stray copy of its partition
		// is, so the table shows that the task gets nothing.
		strays := map[string]bool{}
		for _, r := range rows {
			if !r.Live && !r.Deleted {
				strays[r.ID.Topic+"\x00"+r.Partition] = true
			}
		}
		shown := 0
		for _, r := range rows {
			if r.Deleted && !deleted && !(r.Live && strays[r.ID.Topic+"\x00"+r.Partition]) {
				continue
			}
			shown++
			task, note := taskWord(r, s.other[r.ID.Topic])
			tw.row(name, jsonCell(r.Partition), offsetText(r), task, c.where(r.ID.TopicPartition), c.updated(r.Updated), c.flags(r.Flags))
			if note != "" {
				where := r.ID.TopicPartition.String()
				if r.Flags&model.FlagNotCanonical != 0 {
					// The table shows the partition parsed; these are other bytes.
					where += " (key " + field(r.ID.Key) + ")"
				}
				notes = append(notes, fmt.Sprintf("  %s %s in %s: %s", name, jsonField(r.Partition), where, noteField(note)))
			}
			if r.TaskNote != "" && !noted[r.Partition] {
				noted[r.Partition] = true
				notes = append(notes, fmt.Sprintf("  %s %s: %s", name, jsonField(r.Partition), noteField(r.TaskNote)))
			}
		}
		if shown == 0 { // every offset deleted (--deleted lists the tombstones)
			notes = append(notes, fmt.Sprintf("  %s: no offsets, so its tasks start without one (Connect's GET offsets is {\"offsets\":[]})", name))
		}
	}
	if err := tw.writeTo(out); err != nil {
		return err
	}
	if len(notes) > 0 {
		fmt.Fprintln(out, "What a restarted task reads (Apache Kafka 4.1.1):")
		for _, l := range notes {
			fmt.Fprintln(out, l)
		}
	}
	return out.Flush()
}

// tableCells are the table's cells that repeat from row to row, each made
// once: a million rows hold a few dozen topic-partitions, flag sets and
// (to the millisecond) times of update.
type tableCells struct {
	wheres   map[model.TopicPartition]string
	flagSets map[model.Flags]string
	time     time.Time
	timeText string
}

func (c *tableCells) where(tp model.TopicPartition) string {
	s, ok := c.wheres[tp]
	if !ok {
		if c.wheres == nil {
			c.wheres = map[model.TopicPartition]string{}
		}
		s = field(tp.String())
		c.wheres[tp] = s
	}
	return s
}

func (c *tableCells) flags(f model.Flags) string {
	s, ok := c.flagSets[f]
	if !ok {
		if c.flagSets == nil {
			c.flagSets = map[model.Flags]string{}
		}
		if s = f.String(); s == "" {
			s = "-"
		}
		c.flagSets[f] = s
	}
	return s
}

func (c *tableCells) updated(t time.Time) string {
	if c.timeText == "" || t != c.time {
		c.time, c.timeText = t, model.TimeText(t)
	}
	return c.timeText
}

// taskWord is the TASK column: whether a restarted task reads this copy,
// and a note saying why when it does not, or reads something else.
func taskWord(r model.PartitionRow, otherTopic bool) (string, string) {
	switch {
	case otherTopic:
		return "not read", "the connector has its own offsets.storage.topic, which its tasks read instead of this one"
	case r.Live && r.TaskReads != "" && r.JavaReads != "":
		return "reads " + jsonField(r.JavaReads), "the stored number reads differently in Java: the task gets " + r.JavaReads
	case r.Live && r.TaskReads != "":
		return "reads", ""
	case r.Live:
		return "none", "the task gets no offset: " + r.NoOffset
	case r.LiveCopy == nil && r.NoOffset != "deleted":
		return "stray", r.Stray
	}
	return "stray", r.Stray
}

func offsetText(r model.PartitionRow) string {
	switch {
	case r.Deleted:
		return "(deleted)"
	case r.Offset == "" && strings.Contains(r.Unreadable, "reads as null"):
		return "(null) " + field(model.Preview(r.Stored, 20))
	case r.Offset == "":
		return "(unreadable) " + field(model.Preview(r.Stored, 40))
	}
	return jsonCell(r.Offset)
}
