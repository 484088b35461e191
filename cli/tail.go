package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"koff/model"
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
	*model.Store
	mu     sync.Mutex
	w      *bufio.Writer
	opts   *tailOptions
	only   map[string]bool
	live   bool
	failed error
}

func (p *tailPrinter) Ingest(batch []model.Record) {
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

func (p *tailPrinter) print(r *model.Record) {
	k, err := model.ParseKey(r.Key)
	if err != nil {
		if len(p.only) > 0 {
			return
		}
		if p.opts.output == "jsonl" {
			fmt.Fprintf(p.w, `{"time":%s,"topic":%s,"topic_partition":%d,"record_offset":%d,"error":%s}`+"\n",
				jsonString(stamp(r.Time)), jsonString(r.Topic), r.Partition, r.Offset, jsonString(err.Error()))
			return
		}
		fmt.Fprintf(p.w, "%s  %s/%d@%d  unparseable: %s  key=%s\n", stamp(r.Time), r.Topic, r.Partition, r.Offset, err, model.Preview(r.Key, 60))
		return
	}
	if len(p.only) > 0 && !p.only[k.Connector] {
		return
	}
	part := compactJSON(k.PartitionRaw)
	off := "deleted"
	if r.Value != nil {
		off = compactJSON(r.Value)
	}
	if p.opts.output == "jsonl" {
		offset := off
		if r.Value == nil {
			offset = "null"
		}
		fmt.Fprintf(p.w, `{"time":%s,"connector":%s,"partition":%s,"offset":%s,"topic":%s,"topic_partition":%d,"record_offset":%d}`+"\n",
			jsonString(stamp(r.Time)), jsonString(k.Connector), part, offset, jsonString(r.Topic), r.Partition, r.Offset)
		return
	}
	fmt.Fprintf(p.w, "%s  %s  %s  %s  %s/%d@%d\n", stamp(r.Time), k.Connector, part, off, r.Topic, r.Partition, r.Offset)
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
	p := &tailPrinter{Store: model.NewStore(model.StoreOptions{}), w: bufio.NewWriter(env.Stdout), opts: o, only: map[string]bool{}}
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
	// Live: report connection changes on stderr, keep going until interrupted.
	var last model.TailState = model.TailLive
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
			st := t.Status()
			if st.State != last {
				if st.State == model.TailDisconnected {
					fmt.Fprintf(env.Stderr, "koff: disconnected: %s (retrying)\n", st.Reason)
				} else if last == model.TailDisconnected {
					fmt.Fprintf(env.Stderr, "koff: reconnected\n")
				}
				last = st.State
			}
		}
	}
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func jsonString(s string) string { return string(model.AppendJackson(nil, s)) }

// compactJSON strips whitespace and nothing else: numbers and escapes stay
// byte for byte.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
