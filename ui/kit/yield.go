package kit

import (
	"runtime"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Work off the UI goroutine gives way to it. Go's scheduler has no
// priorities: a command's new goroutine takes the place in the run queue
// that the UI goroutine, which just handed it over, would run from next,
// and a read or sort of 100,000 rows then holds that core for up to the
// scheduler's 10 ms time slice while a key waits behind it. offUI's
// commands step aside once when they start, and their long loops every
// half millisecond (yielder), so that a key finds a core within about
// that.

// offUI is work as a command that first lets the UI goroutine run.
func OffUI(work func() tea.Msg) tea.Cmd {
	return func() tea.Msg {
		runtime.Gosched()
		return work()
	}
}

// yieldEvery is how long a loop off the UI goroutine runs before it lets
// others run.
const yieldEvery = 500 * time.Microsecond

// yielder is a long loop's count of steps, to give way every yieldEvery.
type Yielder struct {
	n    uint32
	next time.Time
}

// step counts one step of the loop and gives way when yieldEvery passed
// since the last time (looked at every 1,024 steps). A nil yielder, of
// work on the UI goroutine, never does.
func (y *Yielder) Step() {
	if y == nil {
		return
	}
	y.n++
	if y.n&1023 != 0 {
		return
	}
	y.GiveWay()
}

// giveWay gives way when yieldEvery passed since the last time: for a
// loop that counts its own steps (the Store's, every 1,024 rows).
func (y *Yielder) GiveWay() {
	if now := time.Now(); now.After(y.next) {
		runtime.Gosched()
		y.next = now.Add(yieldEvery)
	}
}

// yielding is cmp counting a step of y at each comparison, for the sorts
// off the UI goroutine.
func Yielding[T any](y *Yielder, cmp func(a, b T) int) func(a, b T) int {
	if y == nil {
		return cmp
	}
	return func(a, b T) int {
		y.Step()
		return cmp(a, b)
	}
}
