package cli

import (
	"context"
	"log"
	"strings"
	"time"

	"koff/model/store"
)

// logEvents writes one line for each event a service's operator must see
// in its log (journald, a container's): koff going blind and seeing
// again, an offsets topic deleted or missing and back, Connect's REST
// API going out of reach and answering again. Not one line per partition
// or per poll: a transition, once.
// startEventLog logs a service's events (koff metrics, koff serve): to
// stderr, which journald or a container keeps, unless --log-file is
// given. Diagnostics (a line per partition and retry) go to --log-file
// only.
func (g *Globals) startEventLog(ctx context.Context, s *store.Store, env Env) {
	g.Metrics.events = g.logger
	if g.LogFile == "" {
		g.Metrics.events = log.New(env.Stderr, "koff: ", 0)
	}
	go logEvents(ctx, s, g.Metrics.events.Printf)
}

// An outage is logged once it lasted outageAfter: a deleted topic's
// fetches fail for a moment before the Tailer sees it is gone.
func logEvents(ctx context.Context, s *store.Store, logf func(string, ...any)) {
	var last eventState
	first := true
	logged := false // the current outage
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		now := time.Now()
		cur := readEvents(s, now)
		if cur.blind != "" && !logged && now.Sub(cur.blindSince) >= outageAfter {
			logf("kafka: cannot read the offsets topics since %s: %s; koff sees no flush until it can", cur.blindSince.Format(time.TimeOnly), cur.blindWhy)
			logged = true
		}
		if cur.blind == "" && last.blind != "" && logged {
			logf("kafka: reading the offsets topics again after %s", now.Sub(last.blindSince).Round(time.Second))
		}
		if cur.blind == "" {
			logged = false
		}
		for _, line := range cur.since(last, first) {
			logf("%s", line)
		}
		last, first = cur, false
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

const outageAfter = 3 * time.Second

type eventState struct {
	blind, blindWhy  string // blind: since when (RFC 3339), "" while koff sees
	blindSince       time.Time
	deleted, missing string
	restErr          string
	restAsked        bool
	reloads          int
	reloadWhy        string
}

func readEvents(s *store.Store, now time.Time) eventState {
	st := s.Stats().Status
	var e eventState
	if since, why := st.Blind(now); why != "" {
		e.blind, e.blindSince, e.blindWhy = since.Format(time.RFC3339), since, st.Reason
		if e.blindWhy == "" {
			e.blindWhy = why
		}
	}
	e.deleted, e.missing = st.Deleted, st.Missing
	e.reloads, e.reloadWhy = st.Reloads, st.ReloadReason
	r := s.REST()
	e.restAsked, e.restErr = !r.At.IsZero() || r.Err != "", r.Err
	return e
}

// since is the lines for what changed from last to e, outages aside.
func (e eventState) since(last eventState, first bool) []string {
	var out []string
	if e.reloads > last.reloads {
		out = append(out, "kafka: reading every offsets topic again from scratch: "+e.reloadWhy)
	}
	for _, t := range added(e.deleted, last.deleted) {
		out = append(out, "kafka: offsets topic "+t+" was deleted: every offset in it is gone; koff waits for it")
	}
	for _, t := range added(e.missing, last.missing) {
		if !contains(strings.Split(e.deleted, ","), t) {
			out = append(out, "kafka: offsets topic "+t+" does not exist; koff waits for it")
		}
	}
	if !first {
		for _, t := range added(last.missing, e.missing) {
			out = append(out, "kafka: offsets topic "+t+" exists again: reading it from the start")
		}
	}
	switch {
	case e.restErr != "" && e.restErr != last.restErr && last.restErr == "":
		out = append(out, "connect: the REST API does not answer: "+e.restErr)
	case e.restErr == "" && last.restErr != "" && e.restAsked:
		out = append(out, "connect: the REST API answers again")
	}
	return out
}

// added is the names in the comma-separated list a and not in b.
func added(a, b string) []string {
	var out []string
	for _, t := range strings.Split(a, ",") {
		if t != "" && !contains(strings.Split(b, ","), t) {
			out = append(out, t)
		}
	}
	return out
}
