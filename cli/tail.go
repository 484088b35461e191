package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/model/text"
)

type tailOptions struct {
	output        string
	fromBeginning bool
}

func init() {
	register(&command{
		name:    "tail",
		args:    "[CONNECTOR...] [-o text|jsonl]",
		summary: "print parsed offset changes live as they arrive, until interrupted",
		flags: func(fs *pflag.FlagSet) any {
			o := &tailOptions{}
			fs.StringVarP(&o.output, "output", "o", "text", "text, or jsonl: one JSON object per change")
			fs.BoolVar(&o.fromBeginning, "from-beginning", false, "also print the changes already in the topics")
			return o
		},
		run: runTail,
	})
}

// tailPrinter prints records as they are ingested: after catch-up, or all of
// them with --from-beginning.
type tailPrinter struct {
	*store.Store
	mu     sync.Mutex
	w      *bufio.Writer
	opts   *tailOptions
	only   map[string]bool
	live   bool
	failed error
}

func (p *tailPrinter) Ingest(batch []store.Record) {
	p.mu.Lock()
	if p.live || p.opts.fromBeginning {
		for i := range batch {
			p.print(&batch[i])
		}
		if err := p.w.Flush(); err != nil && p.failed == nil {
			p.failed = err // stdout closed, e.g. piped into head
		}
	}
	p.mu.Unlock()
	p.Store.Ingest(batch)
}

func (p *tailPrinter) print(r *store.Record) {
	k, err := model.ParseKey(r.Key)
	if err != nil {
		if len(p.only) > 0 {
			return
		}
		if p.opts.output == "jsonl" {
			p.w.Write(text.JSONSafe(fmt.Appendf(nil, `{"time":%s,"topic":%s,"topic_partition":%d,"record_offset":%d,"error":%s}`+"\n",
				jsonString(stamp(r.Time)), jsonString(r.Topic), r.Partition, r.Offset, jsonString(err.Error()))))
			return
		}
		fmt.Fprintf(p.w, "%s  %s/%d@%d  unparseable: %s  key=%s\n", model.TimeText(r.Time), field(r.Topic), r.Partition, r.Offset, field(err.Error()), model.Preview(r.Key, 60))
		return
	}
	if len(p.only) > 0 && !p.only[k.Connector] {
		return
	}
	part := string(k.PartitionRaw)
	// The value as the task reads it (OffsetStorageReaderImpl): an offset
	// in compact JSON, or why there is none. Every jsonl line stays valid
	// JSON: a value the task cannot read is a string field with its reason.
	off, offJSON, bad := "deleted", "null", ""
	if r.Value != nil {
		o, err := model.ParseOffset(r.Value)
		if err == nil {
			offJSON = string(java.AppendJackson(nil, o))
			off = offJSON
		} else {
			bad = err.Error()
			off = "(" + bad + ") " + model.Preview(r.Value, 60)
		}
	}
	if p.opts.output == "jsonl" {
		extra := ""
		if bad != "" {
			extra = `,"value":` + jsonString(string(r.Value)) + `,"error":` + jsonString(bad)
		}
		p.w.Write(text.JSONSafe(fmt.Appendf(nil, `{"time":%s,"connector":%s,"partition":%s,"offset":%s%s,"topic":%s,"topic_partition":%d,"record_offset":%d}`+"\n",
			jsonString(stamp(r.Time)), jsonString(k.Connector), part, offJSON, extra, jsonString(r.Topic), r.Partition, r.Offset)))
		return
	}
	fmt.Fprintf(p.w, "%s  %s  %s  %s  %s/%d@%d\n", model.TimeText(r.Time), field(k.Connector), jsonField(part), jsonField(off), field(r.Topic), r.Partition, r.Offset)
}

func runTail(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*tailOptions)
	if o.output != "text" && o.output != "jsonl" {
		return usagef("-o must be text or jsonl, got %q", o.output)
	}
	if err := g.needBootstrap(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(env.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	p := &tailPrinter{Store: store.NewStore(store.StoreOptions{}), w: bufio.NewWriter(env.Stdout), opts: o, only: map[string]bool{}}
	for _, a := range args {
		p.only[a] = true
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t, done := startTailer(tctx, g, p)
	defer func() { cancel(); <-done }()
	if err := waitCaughtUp(ctx, g, t, 10*time.Minute); err != nil {
		if ctx.Err() != nil {
			return nil // interrupted while catching up
		}
		return err
	}
	p.mu.Lock()
	p.live = true
	p.mu.Unlock()
	// A name with nothing yet may be a connector about to start, or a typo:
	// say so once, and keep waiting for it.
	for _, n := range args {
		if hasOffsets(p.Store, n) {
			continue
		}
		if group := sinkGroupOf(ctx, g, n); group != "" {
			fmt.Fprintf(env.Stderr, "koff: %s is a sink: its offsets are consumer group %s's, which tail does not follow (koff status %s shows them)\n", field(n), field(group), field(n))
			continue
		}
		fmt.Fprintf(env.Stderr, "koff: %s; waiting for them\n", waitingFor(n, g, knownNames(p.Store)))
	}
	// Live: report connection changes on stderr, keep going until interrupted.
	conn := connReport{w: env.Stderr, down: model.TailLive, reloaded: t.Status().Reloaded}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			p.mu.Lock()
			failed := p.failed
			p.mu.Unlock()
			if failed != nil {
				return nil
			}
			conn.update(t.Status())
		}
	}
}

// connReport prints the tailer's connection changes on stderr: one line
// when an outage begins (and when a stall turns into a failure), one when
// every partition answers again, and one for each reload from scratch.
type connReport struct {
	w        io.Writer
	down     model.TailState // the outage's state so far; TailLive when none
	since    time.Time
	reloaded time.Time
}

func (c *connReport) update(st model.TailStatus) {
	if !st.Reloaded.Equal(c.reloaded) {
		c.reloaded = st.Reloaded
		fmt.Fprintf(c.w, "koff: reading the offsets topics again from scratch: %s\n", text.Sanitize(st.ReloadReason))
	}
	switch st.State {
	case model.TailDisconnected, model.TailStalled:
		if c.down == st.State {
			return
		}
		if c.down == model.TailLive {
			c.since = st.Since
		}
		c.down = st.State
		if st.State == model.TailStalled {
			fmt.Fprintf(c.w, "koff: stalled since %s: %s (waiting)\n", model.TimeText(st.Since), text.Sanitize(st.Reason))
			return
		}
		fmt.Fprintf(c.w, "koff: disconnected since %s: %s (retrying)\n", model.TimeText(st.Since), text.Sanitize(st.Reason))
	case model.TailLive:
		if c.down == model.TailDisconnected || c.down == model.TailStalled {
			fmt.Fprintf(c.w, "koff: reconnected after %s\n", ageText(time.Since(c.since)))
		}
		c.down = model.TailLive
	}
}

// stamp is a time in JSON: RFC 3339 in UTC to the millisecond.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func jsonString(s string) string { return string(java.AppendJackson(nil, s)) }

// compactJSON strips whitespace and nothing else: numbers and escapes stay
// byte for byte.
