package cli

import (
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"koff/model"
	"koff/model/store"
)

// readOnce makes koff get -o json and koff export of every connector read
// the offsets topics without the Store's index or entries
// (store.OneShotRead); a test turns it off to compare with the Store.
var readOnce = true

// readOnceGaveUp is why the last loadReadOnce left the printing to the
// Store, "" when it printed itself (a test's view).
var readOnceGaveUp atomic.Pointer[string]

// loadReadOnce is loadStoreWith of a one-shot Store whose offsets topics'
// records go to a store.OneShotRead: it returns its bodies when they are
// what the Store would print of the named connectors (all when none is
// named), else nil and the Store, handed every record read (nothing is
// read twice). Connectors the Store knows otherwise (sinks' groups,
// Connect's REST and config topic) are in the Store either way; a name
// neither knows is the Store's to explain.
func loadReadOnce(g *Globals, env Env, timeout time.Duration, restOptional, withEmpty bool, named []string) (*store.Store, *store.OneShotBodies, error) {
	read := &store.OneShotRead{}
	st, err := loadStoreRead(g, env, timeout, restOptional, true, read)
	if err != nil {
		return nil, nil, err
	}
	why := read.Why()
	var bodies *store.OneShotBodies
	if why == "" {
		var ok bool
		if bodies, ok = read.Bodies(); ok {
			why = storeMustPrint(st, bodies.Connectors())
			if why == "" {
				why = unknownName(st, g, withEmpty, bodies.Connectors(), named)
			}
		} else {
			why = read.Why()
		}
	}
	readOnceGaveUp.Store(&why)
	if why != "" {
		g.logf("read once: the Store prints: %s", why)
		read.HandOver()
		return st, nil, nil
	}
	return st, bodies, nil
}

// storeMustPrint says why the Store prints rather than the bodies of a
// OneShotRead whose connectors are names (sorted), when the Store's view
// of one of them changes what koff prints of its offsets: it has its own
// offsets.storage.topic (REST or the config topic say so: its tasks read
// that topic, not the shared one), or the Store knows it as a sink (its
// group, REST or the config topic). (A connector's own topic that holds
// records makes the read one of several topics, which Bodies leaves to
// the Store.) A connector the Store knows that the read does not (a sink,
// a source REST lists with no offsets) is printed from the Store beside
// the read's (printReadOnce).
func storeMustPrint(st *store.Store, names []string) string {
	rest, configs := st.REST().Connectors, st.ConnectConfigs().Connectors
	for _, n := range names {
		if strings.TrimSpace(rest[n].Config["offsets.storage.topic"]) != "" {
			return "connector " + n + " has its own offsets topic (REST)"
		}
		if cc, ok := configs[n]; ok && cc.OwnOffsetsTopic() != "" {
			return "connector " + n + " has its own offsets topic (config topic)"
		}
	}
	for _, c := range st.ConnectorList() {
		if _, found := slices.BinarySearch(names, c.ID.Name); found && (c.Type != "source" || c.Sink != nil || c.ID.Topic != "" || c.OwnTopic != "") {
			return "connector " + c.ID.Name + " is known otherwise, as a " + c.Type
		}
	}
	return ""
}

// unknownName is the first of named that neither the Store (what
// selectConnectors picks of it with withEmpty) nor the read (names)
// knows, as why the Store prints: it explains.
func unknownName(st *store.Store, g *Globals, withEmpty bool, names, named []string) string {
	if len(named) == 0 {
		return ""
	}
	known, _ := selectConnectors(st, nil, g, withEmpty)
	for _, n := range named {
		if _, found := slices.BinarySearch(names, n); !found && known[n] == nil {
			return "no connector " + n
		}
	}
	return ""
}

// printReadOnce is printOffsetsJSON of the named connectors, or of every
// connector (with withEmpty, those REST lists with no offsets too): the
// bodies of those the read holds written from it, the others' from the
// Store; with single (one name), its body alone, as Connect's GET
// answers it.
func printReadOnce(env Env, st *store.Store, bodies *store.OneShotBodies, g *Globals, withEmpty bool, named []string, single bool) error {
	others, err := selectConnectors(st, nil, g, withEmpty)
	if err != nil {
		return withRESTDown(st, err)
	}
	read := bodies.Connectors()
	for _, n := range read {
		delete(others, n)
	}
	names := slices.Concat(read, sortedNames(others))
	slices.Sort(names)
	if len(named) > 0 {
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(named, n) })
	}
	write, flush := jsonOutput(env)
	writeBodies(write, names, single, func(i int) {
		if j, found := slices.BinarySearch(read, names[i]); found {
			bodies.WriteBody(j, write)
			return
		}
		b, printable := bodyOf(st, others[names[i]], nil)
		write(b, printable)
	})
	return flush()
}

// readOnceRows are the connectors of the Store and of bodies, by name
// only (for warnLookAlike).
func readOnceRows(st *store.Store, bodies *store.OneShotBodies) []model.ConnectorRow {
	rows := st.ConnectorList()
	for _, n := range bodies.Connectors() {
		rows = append(rows, model.ConnectorRow{ID: model.ConnectorID{Name: n}})
	}
	return rows
}
