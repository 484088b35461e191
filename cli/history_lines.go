package cli

import (
	"encoding/json"
	"runtime"
	"strconv"
	"sync"
	"unicode/utf8"

	"koff/edit/history"
	"koff/model"
)

// A lineMaker appends one commit's line of a history. Each worker of
// writeLines has its own, with its own caches.
type lineMaker interface {
	// line appends c's line; first: it is the first line of the history.
	line(b []byte, c *history.Commit, first bool) []byte
}

// writeLines writes each commit's line in the order read. The runs of
// commits (edit.Editor.FinishHistoryRuns) are laid out by workers beside
// one another, a million lines being most of a history's work, and
// written in order by one more.
func writeLines(read historyRead, ready func(*history.History), newMaker func() lineMaker, w *pipeWriter) (*history.History, error) {
	type job struct {
		i       int
		commits func(func(*history.Commit) error) error
		out     chan []byte
	}
	workers := min(max(runtime.GOMAXPROCS(0), 1), 4)
	jobs := make(chan job)
	order := make(chan chan []byte, 2*workers)
	free := make(chan []byte, 3*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := newMaker()
			for j := range jobs {
				var b []byte
				select {
				case b = <-free:
				default:
				}
				b, first := b[:0], j.i == 0
				j.commits(func(c *history.Commit) error {
					b = m.line(b, c, first)
					first = false
					return nil
				})
				j.out <- b
			}
		}()
	}
	var werr error
	written := make(chan struct{})
	go func() {
		defer close(written)
		for out := range order {
			b := <-out
			if werr == nil {
				werr = w.writeSafe(b)
			}
			select {
			case free <- b:
			default:
			}
		}
	}()
	h, err := read(ready, func(i int, commits func(func(*history.Commit) error) error) error {
		out := make(chan []byte, 1)
		order <- out
		jobs <- job{i: i, commits: commits, out: out}
		return w.failed()
	})
	close(jobs)
	close(order)
	wg.Wait()
	<-written
	if err == nil {
		err = werr
	}
	return h, err
}

// historyLines lays out the text history's lines as fmt's
// "%-27s  %-*s  %-5s  %-*s  %s%s" would, with historyWhen, recordText,
// jsonField, historyValueText and editMark, but by hand: a million lines
// felt fmt's cost. What is the same for a run of lines (a key's partition
// map, a topic-partition's text, the time to the second) is made once.
// Every outside field goes through field or jsonField: the lines are safe
// as made.
type historyLines struct {
	cols  *historyColumns
	times refText
	parts map[*history.CopyHistory]string
	tp    model.TopicPartition
	tpTxt string // field of tp.String(), "" when it could be clipped
}

func (l *historyLines) line(b []byte, c *history.Commit, _ bool) []byte {
	at := len(b)
	if noTimestamp(c.Time) {
		b = append(b, noTimestampText...)
	} else {
		l.times.text = true
		b = l.times.appendTime(b, c.Time)
	}
	b = padRunes(b, at, historyTimeWidth)
	b = append(b, "  "...)
	at = len(b)
	if c.ID.TopicPartition != l.tp || l.tpTxt == "" {
		l.tp, l.tpTxt = c.ID.TopicPartition, ""
		// Sanitising the topic-partition apart from "@offset" changes
		// nothing unless the whole is long enough to be clipped.
		if tp := c.ID.TopicPartition.String(); len(tp)+21 <= cellMax {
			l.tpTxt = field(tp)
		}
	}
	if l.tpTxt != "" {
		b = append(b, l.tpTxt...)
		b = append(b, '@')
		b = strconv.AppendInt(b, c.Offset, 10)
	} else {
		b = append(b, recordText(c.ID.TopicPartition, c.Offset)...)
	}
	b = padRunes(b, at, l.cols.record)
	b = append(b, "  "...)
	at = len(b)
	b = append(b, c.Copy...)
	b = padRunes(b, at, 5)
	b = append(b, "  "...)
	if l.parts == nil {
		l.parts = map[*history.CopyHistory]string{}
	}
	part, ok := l.parts[c.Summary]
	if !ok || c.Summary == nil {
		part = jsonField(c.Partition)
		if c.Summary != nil {
			l.parts[c.Summary] = part
		}
	}
	at = len(b)
	b = append(b, part...)
	b = padRunes(b, at, l.cols.partition)
	b = append(b, "  "...)
	b = append(b, historyValueText(c.Value)...)
	b = append(b, editMark(c)...)
	return append(b, '\n')
}

// padRunes pads b[at:] with spaces to width runes, as fmt's %-Ns does.
func padRunes(b []byte, at, width int) []byte {
	for n := utf8.RuneCount(b[at:]); n < width; n++ {
		b = append(b, ' ')
	}
	return b
}

// jsonLines lays out the JSON history's commits. The outside bytes
// (names, keys, values) go through outputSafe; the rest is koff's ASCII,
// and a million commits feel every byte scanned.
type jsonLines struct {
	refs refText
	keys map[*history.CopyHistory][]byte // each key as JSON with its partition map, made once
}

func (l *jsonLines) line(b []byte, c *history.Commit, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, "\n{"...)
	b = l.refs.append(b, history.CommitRef{TopicPartition: c.ID.TopicPartition, Offset: c.Offset, Time: c.Time, LogAppendTime: c.LogAppendTime})
	k, ok := l.keys[c.Summary]
	if !ok {
		k = appendKeyJSON(nil, c.ID.Key)
		k = append(k, `,"source_partition":`...)
		k = appendRaw(k, []byte(c.Partition))
		k = outputSafe(k)
		l.keys[c.Summary] = k
	}
	b = append(b, `,"key":`...)
	b = append(b, k...)
	b = append(b, `,"copy":"`...)
	b = append(b, c.Copy...)
	b = append(b, `",`...)
	b = appendValueJSON(b, c.Value)
	if c.Edit != nil {
		e, _ := json.Marshal(c.Edit)
		b = appendJSONSafe(append(b, `,"koff_edit":`...), e)
	}
	if c.Koff {
		b = append(b, `,"koff_header":true`...)
	}
	return append(b, '}')
}
