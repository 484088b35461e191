package cli

import (
	"context"
	"time"

	"koff/model"
	"koff/model/resume"
	"koff/probe"
)

// dbCheckEvery is how often the resume poller asks a Debezium connector's
// database at most: each check opens a connection, which a database logs;
// its slot or binary logs change on the scale of minutes. The other
// checks (a Kafka poll, a file's size) run at every --refresh.
const dbCheckEvery = 30 * time.Second

// costlyCheckBackoff is how many times what the MirrorMaker 2
// connectors' checks took (added up) the poller waits before their next:
// the check of a million partitions asks the source cluster for a million
// logs' bounds, and that at every --refresh would keep a core busy. A
// check of a few thousand partitions takes milliseconds, and stays at
// --refresh.
const costlyCheckBackoff = 10

// resumePoller is the live views' resume check (runResume): the Checker
// of the global flags, the memory the Sources are read into, and the last
// answers of the databases, kept until they are due again.
type resumePoller struct {
	ck     *probe.Checker
	sr     sourceReader
	dbAt   time.Time
	dbLast map[string]resume.Connector
	// dbEvery is dbCheckEvery, or --refresh when that is longer.
	dbEvery time.Duration
	// sinks is the last check of each sink judged from the lag poller's
	// poll (resume_sinks.go), by connector.
	sinks map[string]*sinkMemo
	// mirrorLast and mirrorDue are each MirrorMaker 2 connector's last
	// check and when the next is due (costlyCheckBackoff).
	mirrorLast map[string]resume.Connector
	mirrorDue  map[string]time.Time
}

// newResumePoller checks with ck at every refresh of every (a database
// at most every dbCheckEvery); one-shot callers (koff status) call
// observer.checkResume with it once a report.
func newResumePoller(ck *probe.Checker, every time.Duration) *resumePoller {
	kept := *ck
	kept.Keep = &probe.Kept{}
	return &resumePoller{ck: &kept, dbEvery: max(dbCheckEvery, every)}
}

// runResume checks every connector in the background, at most every
// --refresh (a Debezium connector's database at most every 30 s) and
// never two checks at once: a check that takes long (a database that does
// not answer within --probe-timeout) finishes later, and the Store's last
// check stands until then. Nothing else waits on it. The first check
// waits until the offsets topics were read (a partial read would judge
// old offsets), Connect's config topic too, REST's first answer (the
// classes and configs it judges by) and the first poll of the sink groups
// (which names the sinks REST does not), that one for at most three
// refreshes.
func (o *observer) runResume(ck *probe.Checker) {
	ctx, every := o.ctx, o.g.Refresh
	p := newResumePoller(ck, every)
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		if !o.readyToCheck(ctx) {
			return
		}
		for {
			o.checkResume(ctx, p)
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	}()
}

// readyToCheck waits for what a check reads; false when ctx ended.
func (o *observer) readyToCheck(ctx context.Context) bool {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	caught := o.tailer.CaughtUp()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-caught:
			caught = nil // read; now REST
		case <-tick.C:
			// An offsets topic that does not exist is never caught up:
			// sinks are checked all the same.
			if o.store.Stats().Status.State == model.TailWaitingForTopic {
				caught = nil
			}
		}
		if caught == nil && (o.poller == nil || !o.store.REST().At.IsZero()) {
			break
		}
	}
	for deadline := time.Now().Add(3 * o.g.Refresh); !o.store.GroupsPolled() && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
	if err := o.readyConfigs(ctx); err != nil {
		o.g.logf("resume check: %v", err)
	}
	return ctx.Err() == nil
}

// checkResume checks every connector the Store knows once, and records
// the results in the Store: a database not yet due again keeps its last
// answer, with the time it was given.
func (o *observer) checkResume(ctx context.Context, p *resumePoller) {
	conns, err := selectConnectors(o.store, nil, o.g, true)
	if err != nil {
		o.g.logf("resume check: %v", err)
		return
	}
	at := time.Now()
	sources := p.sr.read(o.store, conns)
	dbDue := at.Sub(p.dbAt) >= p.dbEvery
	ask := make([]probe.Source, 0, len(sources))
	kept := map[int]resume.Connector{}
	var sinks []int
	for i, s := range sources {
		if s.Type == "sink" && s.Absent == "" {
			sinks = append(sinks, i)
		}
	}
	shared := make([]resume.Connector, len(sources))
	plain := map[int]bool{}
	for _, i := range p.checkSharedSinks(ctx, o, sources, sinks, shared, at) {
		plain[i] = true
	}
	for _, i := range sinks {
		if !plain[i] {
			kept[i] = shared[i]
		}
	}
	for i, s := range sources {
		if _, ok := kept[i]; ok {
			continue
		}
		if last, ok := p.dbLast[s.Name]; ok && !dbDue && probe.HandlesDatabase(s.Class) && last.Class == s.Class {
			kept[i] = last
			continue
		}
		if last, ok := p.mirrorLast[s.Name]; ok && s.Class == resume.ClassMirrorSource && last.Class == s.Class && at.Before(p.mirrorDue[s.Name]) {
			kept[i] = last
			continue
		}
		ask = append(ask, s)
	}
	answers := p.ck.Check(ctx, ask)
	if ctx.Err() != nil {
		return // stopped part way: not a check
	}
	results := make([]resume.Connector, 0, len(sources))
	db := map[string]resume.Connector{}
	mirrors, due := map[string]resume.Connector{}, map[string]time.Time{}
	var asked []string
	var took time.Duration
	for i, s := range sources {
		r, ok := kept[i]
		if !ok {
			r, answers = answers[0], answers[1:]
		}
		if probe.HandlesDatabase(s.Class) {
			db[s.Name] = r
		}
		if s.Class == resume.ClassMirrorSource {
			mirrors[s.Name] = r
			if ok {
				due[s.Name] = p.mirrorDue[s.Name]
			} else {
				asked = append(asked, s.Name)
				took += p.ck.Keep.Took(s.Name)
			}
		}
		results = append(results, r)
	}
	// What the connectors checked now took together, each on its own:
	// seventy connectors of 14,000 partitions cost what one of a million
	// does.
	next := time.Now().Add(costlyCheckBackoff * took)
	for _, name := range asked {
		due[name] = next
	}
	p.mirrorLast, p.mirrorDue = mirrors, due
	p.ck.Keep.Forget(func(name string) bool { _, ok := mirrors[name]; return ok })
	if dbDue {
		p.dbAt = at
	}
	p.dbLast = db
	o.store.SetResume(results, at)
}
