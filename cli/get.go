package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"koff/model"
)

type getOptions struct {
	output  string
	deleted bool
	timeout time.Duration
}

func init() {
	register(&command{
		name:    "get",
		args:    "[CONNECTOR...] [-o table|json]",
		summary: "read the offsets topics to their end and print each connector's source offsets",
		flags: func(fs *pflag.FlagSet) any {
			o := &getOptions{}
			fs.StringVarP(&o.output, "output", "o", "table", "table, or json: Connect's GET /connectors/NAME/offsets body (an object keyed by connector for several)")
			fs.BoolVar(&o.deleted, "deleted", false, "table: also list source partitions whose offset was deleted (tombstoned)")
			fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "give up reading after this long")
			return o
		},
		run: runGet,
	})
}

func runGet(g *Globals, opts any, args []string, env Env) error {
	o := opts.(*getOptions)
	if o.output != "table" && o.output != "json" {
		return usagef("-o must be table or json, got %q", o.output)
	}
	if err := g.needBootstrap(); err != nil {
		return err
	}
	store, err := loadStore(g, o.timeout)
	if err != nil {
		return err
	}
	conns, err := selectConnectors(store, args, g)
	if err != nil {
		return err
	}
	if o.output == "json" {
		return printOffsetsJSON(env, store, conns, len(args) == 1)
	}
	return printOffsetsTable(env, store, conns, o.deleted)
}

// loadStore reads every offsets topic to its end into a new Store.
func loadStore(g *Globals, timeout time.Duration) (*model.Store, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := model.NewStore(model.StoreOptions{})
	t, done := startTailer(ctx, g, store)
	err := waitCaughtUp(ctx, g, t, timeout)
	cancel()
	<-done
	return store, err
}

// selectConnectors picks the named connectors (all when none are named),
// grouped by name across offsets topics.
func selectConnectors(store *model.Store, names []string, g *Globals) (map[string][]model.ConnectorID, error) {
	all := map[string][]model.ConnectorID{}
	for _, c := range store.Connectors() {
		all[c.ID.Name] = append(all[c.ID.Name], c.ID)
	}
	if len(names) == 0 {
		return all, nil
	}
	out := map[string][]model.ConnectorID{}
	for _, n := range names {
		ids, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("connector %s has no offsets in %s", n, strings.Join(g.OffsetsTopics, ", "))
		}
		out[n] = ids
	}
	return out, nil
}

func sortedNames(m map[string][]model.ConnectorID) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func rowsOf(store *model.Store, ids []model.ConnectorID) []model.PartitionRow {
	var rows []model.PartitionRow
	for _, id := range ids {
		rows = append(rows, store.Partitions(id)...)
	}
	return rows
}

// printOffsetsJSON writes Connect's GET offsets body for one connector, or an
// object keyed by connector name with that body as each value. Bytes are
// assembled by hand: encoding/json would HTML-escape the stored JSON.
func printOffsetsJSON(env Env, store *model.Store, conns map[string][]model.ConnectorID, single bool) error {
	var b strings.Builder
	names := sortedNames(conns)
	if single {
		b.Write(model.OffsetsBody(rowsOf(store, conns[names[0]])))
	} else {
		b.WriteByte('{')
		for i, n := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(model.AppendJackson(nil, n))
			b.WriteByte(':')
			b.Write(model.OffsetsBody(rowsOf(store, conns[n])))
		}
		b.WriteByte('}')
	}
	b.WriteByte('\n')
	_, err := fmt.Fprint(env.Stdout, b.String())
	return err
}

func printOffsetsTable(env Env, store *model.Store, conns map[string][]model.ConnectorID, deleted bool) error {
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONNECTOR\tPARTITION\tOFFSET\tTOPIC-PARTITION\tUPDATED\tFLAGS")
	for _, n := range sortedNames(conns) {
		for _, r := range rowsOf(store, conns[n]) {
			if r.Deleted && !deleted {
				continue
			}
			off := r.Offset
			if r.Deleted {
				off = "(deleted)"
			}
			flags := r.Flags.String()
			if flags == "" {
				flags = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", n, r.Partition, off, r.ID.TopicPartition, r.Updated.Local().Format(time.RFC3339), flags)
		}
	}
	return tw.Flush()
}
