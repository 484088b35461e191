package metrics

import (
	"sync"

	"koff/model"
)

// lifetime keeps koff's counters counting for the whole process: the
// Store counts from its last reload (a recreated topic or cluster makes
// it read everything again from zero), a Prometheus counter never goes
// down while its process lives. A count seen to fall was reset; what it
// had reached is added to what it counts from then on. Reads between the
// last scrape and a reload are not seen.
type lifetime struct {
	mu         sync.Mutex
	base, last map[string]float64
}

// add records the Store's count n for key and returns the lifetime count.
func (l *lifetime) add(key string, n float64) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.addLocked(key, n)
}

func (l *lifetime) addLocked(key string, n float64) float64 {
	if l.last == nil {
		l.base, l.last = map[string]float64{}, map[string]float64{}
	}
	if last, ok := l.last[key]; ok && n < last {
		l.base[key] += last
	}
	l.last[key] = n
	return l.base[key] + n
}

// get is the lifetime count of key as last added.
func (l *lifetime) get(key string) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.base[key] + l.last[key]
}

// lifetimeRecords adds every row's records, exported or not: a row left
// out of this scrape still counts on.
func (c *Collector) lifetimeRecords(rows []model.ConnectorRow) {
	c.life.mu.Lock()
	defer c.life.mu.Unlock()
	for i := range rows {
		if rows[i].Type == "sink" {
			continue
		}
		c.life.addLocked(rows[i].ID.Name+"\x00"+rows[i].ID.Topic, float64(rows[i].Records))
	}
}
