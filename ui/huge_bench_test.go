package ui

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkDetailOfAHugeKey is one refresh and frame of the partition
// detail of a 1 MB key and value: what the open screen costs each second.
func BenchmarkDetailOfAHugeKey(b *testing.B) {
	f := newFixture()
	f.put(t0.Add(-time.Second), `["big",{"k":"`+strings.Repeat("x", 1<<20)+`"}]`, `{"o":"`+strings.Repeat("y", 1<<20)+`"}`)
	m := newTestModel(f.store)
	var tb testing.T
	send(&tb, m, size(120, 40), tickMsg{})
	send(&tb, m, press("enter", "enter")...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Refresh(t0.Add(time.Duration(i)*time.Second), true)
		_ = m.View()
	}
}
