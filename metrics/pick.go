package metrics

import (
	"fmt"
	"sort"
	"time"

	"koff/model"
	"koff/model/resume"
)

// picked is a row whose series a scrape exports, with what it was
// judged by.
type picked struct {
	row         *model.ConnectorRow
	name, topic string // as label values
	key         string // the row's raw name and offsets topic (lifetime)
	flush       model.FlushReport
	failed      int // FAILED tasks
	stray       int
	attention   bool
}

// pick is the rows whose per-connector series a scrape exports: every
// one up to ConnectorLimit; past it, those that need attention first (a
// flush not ok or idle, a FAILED task or connector, suspect keys, stray
// copies), then by name, so an alert still sees the connector it is
// about among 10,000 (and a gap or replay in the resume check). total is the rows there are; flushCounts counts
// the source rows by flush status, over all of them.
func (c *Collector) pick(rows []model.ConnectorRow, now time.Time) (out []picked, total int, flushCounts map[model.FlushStatus]int, resumeCounts map[resume.State]int) {
	flushCounts, resumeCounts = map[model.FlushStatus]int{}, map[resume.State]int{}
	// A name and offsets topic is one row; should two rows ever share
	// them as label values (a sink by its group and by the config topic,
	// or two names that escape alike), the first is exported: a series
	// twice would be an error.
	seen := make(map[[2]string]bool, len(rows))
	out = make([]picked, 0, len(rows))
	for i := range rows {
		p, ok := c.judge(&rows[i], now)
		if !ok || seen[[2]string{p.name, p.topic}] {
			continue
		}
		seen[[2]string{p.name, p.topic}] = true
		if p.row.Type != "sink" {
			flushCounts[p.flush.Status]++
		}
		if p.row.Resume != nil {
			resumeCounts[p.row.Resume.State]++
		}
		out = append(out, p)
	}
	total = len(out)
	if c.o.ConnectorLimit <= 0 || total <= c.o.ConnectorLimit {
		return out, total, flushCounts, resumeCounts
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.attention != b.attention {
			return a.attention
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.topic < b.topic
	})
	return out[:c.o.ConnectorLimit], total, flushCounts, resumeCounts
}

// judge is what a row's series say; ok is false for a row koff could not
// judge (a bug: logged and counted, the other rows exported).
func (c *Collector) judge(r *model.ConnectorRow, now time.Time) (p picked, ok bool) {
	defer func() {
		if x := recover(); x != nil {
			c.failed(fmt.Sprintf("connector %s: %v", label(r.ID.Name), x))
			ok = false
		}
	}()
	p = picked{row: r, name: label(r.ID.Name), topic: label(r.ID.Topic), key: r.ID.Name + "\x00" + r.ID.Topic}
	if r.InREST && r.RESTStale == "" {
		for _, t := range r.REST.Tasks {
			if t.State == "FAILED" {
				p.failed++
			}
		}
		p.attention = p.failed > 0 || r.REST.State == "FAILED"
	}
	p.attention = p.attention || needsResumeLook(r.Resume)
	if r.Type != "sink" {
		p.flush = r.Flush(now, c.o.FlushInterval)
		if !r.Authoritative() {
			// Every copy here is one the connector's tasks never read.
			p.stray = r.Partitions + r.NoOffset
		}
		switch p.flush.Status {
		case model.FlushLate, model.FlushStalled, model.FlushUnknown:
			p.attention = true
		}
		p.attention = p.attention || r.Suspect > 0 || p.stray > 0
	}
	return p, true
}
