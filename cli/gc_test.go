package cli

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// gcSettings reads GOGC and the memory limit as the runtime has them.
func gcSettings() (percent, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// A read runs without collection up to its budget; its first collection
// hands the heap back to the pacer at GOGC 400 (a read of many
// superseded values stays bounded), and when the last read under way
// ends the settings are what they were, so a process that reads several
// times (a test binary, the dashboard's callers) keeps collecting.
func TestCollectLateCollectsFromTheFirstCollectionAndRestores(t *testing.T) {
	percent, limit := gcSettings()
	env := Env{Getenv: func(string) string { return "" }}

	end1 := collectLate(env)
	end2 := collectLate(env) // a second read under way
	if p, l := gcSettings(); p != -1 || l != min(limit, readHeapBudget) {
		t.Fatalf("during a read: GOGC %d, limit %d; want off (-1) and %d", p, l, min(limit, readHeapBudget))
	}
	runtime.GC() // what reaching the budget brings about
	deadline := time.Now().Add(10 * time.Second)
	for p, _ := gcSettings(); p != 400; p, _ = gcSettings() {
		if time.Now().After(deadline) {
			t.Fatalf("after the first collection GOGC is %d, want 400", p)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if _, l := gcSettings(); l != limit {
		t.Fatalf("after the first collection the limit is %d, want the one found (%d)", l, limit)
	}
	end1()
	end1() // ending twice counts once
	if p, _ := gcSettings(); p != 400 {
		t.Fatalf("with a read still under way GOGC is %d, want 400", p)
	}
	end2()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("after the reads: GOGC %d, limit %d; want %d and %d as before", p, l, percent, limit)
	}

	// A read that starts and ends before any collection restores too.
	collectLate(env)()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("after an uncollected read: GOGC %d, limit %d; want %d and %d", p, l, percent, limit)
	}
}

// GOGC in the environment is the operator's: a read leaves it alone.
func TestCollectLateLeavesGOGCFromTheEnvironment(t *testing.T) {
	percent, limit := gcSettings()
	end := collectLate(Env{Getenv: func(k string) string {
		if k == "GOGC" {
			return "100"
		}
		return ""
	}})
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("with GOGC set: GOGC %d, limit %d; want %d and %d untouched", p, l, percent, limit)
	}
	end()
}
