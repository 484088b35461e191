package kafka

import (
	"koff/model"
	"koff/model/store"
)

// historyLoader loads a Store from the answers a history read walks, with
// the Tailer's decode, Latest and ownership of values
// (Tailer.tailPartition): the Store is the one the Tailer would have
// read to the same ends. It works on a goroutine of its own, beside the
// walk of the same answer.
type historyLoader struct {
	tp     model.TopicPartition
	h      Handler
	end    int64
	dec    decoder
	latest *store.Latest
	jobs   chan loadJob
	done   chan struct{}
}

type loadJob struct {
	pos int64
	p   *fetchedPartition
}

func handlerOf(l *HistoryLoad) Handler {
	if l == nil {
		return nil
	}
	return l.Handler
}

// newHistoryLoader loads lg's records below its End (nil when load is).
func newHistoryLoader(load *HistoryLoad, lg RetainedLog) *historyLoader {
	if load == nil {
		return nil
	}
	l := &historyLoader{tp: lg.TopicPartition, h: load.Handler, end: lg.End}
	if load.Latest > 0 {
		l.latest = store.NewLatest(load.Latest)
		l.dec.borrow = true // values copied once kept
	}
	l.jobs, l.done = make(chan loadJob), make(chan struct{})
	go func() {
		for j := range l.jobs {
			if j.p.ErrorCode == 0 {
				l.dec.decode(l.tp, j.pos, j.p, l.ingest)
			}
			l.done <- struct{}{}
		}
	}()
	return l
}

// load starts handing the Store the records of an answer fetched from
// pos; wait waits until it is done with the answer.
func (l *historyLoader) load(pos int64, p *fetchedPartition) {
	if l != nil {
		l.jobs <- loadJob{pos, p}
	}
}

func (l *historyLoader) wait() {
	if l != nil {
		<-l.done
	}
}

// close ends the loader's goroutine.
func (l *historyLoader) close() {
	if l != nil {
		close(l.jobs)
	}
}

func (l *historyLoader) ingest(recs []store.Record) {
	// Records written after the read began are the Tailer's, which goes
	// on from the end the history read stopped at.
	for len(recs) > 0 && recs[len(recs)-1].Offset >= l.end {
		recs = recs[:len(recs)-1]
	}
	if len(recs) == 0 {
		return
	}
	if l.latest != nil {
		recs = l.latest.Keep(recs)
		l.dec.own(recs)
	} else {
		for i := range recs {
			recs[i].Prepare()
		}
	}
	l.h.Ingest(recs)
}
