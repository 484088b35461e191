package ui

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// sortOrder is one way of ordering a table's rows.
type sortOrder[T any] struct {
	name string
	cmp  func(a, b T) int
}

// list is the state behind every table screen: the rows from the Source,
// the filter and sort applied to them, and a selection kept by identity.
//
// It owns scrolling itself and hands the bubbles table only the rows on
// screen: the table keeps its scroll offset private and loses it on
// SetRows, but a live view must keep both the selected row and its place on
// screen while rows arrive, move and re-sort underneath it. Formatting only
// the visible rows also keeps a refresh cheap however many rows there are.
type list[T any] struct {
	st  *Styles
	tbl table.Model
	id  func(T) string
	// matchID, when set, tells an item of an identity as id(item) == id
	// does, without building id(item).
	matchID func(id string) func(T) bool
	match   func(item T, lowerQuery string) bool
	sorts   []sortOrder[T]
	sort    int

	filter string
	items  []T // as read from the Source

	// search, when set, gives the texts a filter looks in (instead of
	// match); they are lowercased once per setItems into hay, not on
	// every key typed.
	search func(T) []string
	hay    []string
	// keyed, when set, gives sort number i as a comparator of item
	// indices, in the same order as sorts[i].cmp, free to use keys it
	// works out once over items. With it, the sorted order of all items
	// is kept until items or the sort change, and a filter only picks
	// from it: typing a filter sorts nothing. Its comparators must be
	// total orders (end in the item's identity).
	keyed func(i int, items []T) func(a, b int32) int
	// ordered, when set, gives the order of sort i (keyed's) of items
	// when it kept what makes it cheaper than a sort (nil: sort them).
	ordered func(i int, items []T) []int32
	// matched, when set, gives which items the lowercased filter q picks
	// (a bit per item, nil: search them), from what it kept of earlier
	// filters of the items' texts (hay).
	matched  func(q string, items []T) []uint64
	sorted   []int32 // every item's index in the sort, when sortedOK
	sortedOK bool
	order    []int32 // the rows: indices of items, after filter and sort
	orderQ   string  // the lowercased filter order was picked for
	orderOK  bool    // order holds the rows for orderQ out of sorted

	// async: filter and sort are worked out off the UI goroutine (viewCmd)
	// and taken in when done (viewDone); stale says the rows on screen are
	// not yet those of filter and sort, busy that the work is under way
	// for the items of generation busyGen. gen counts the items taken in,
	// so a view of older ones is dropped.
	async, stale, busy bool
	// asked is the sort and filter last asked for, for work that runs
	// elsewhere to read at its last moment.
	asked        askedView
	gen, busyGen int

	cursor, offset int    // index into rows of the selection and of the top row
	selID          string // identity of the selected row, "" before the first
	width, height  int    // height counts data rows, not the table header
}

func newList[T any](st *Styles, id func(T) string, match func(T, string) bool, sorts ...sortOrder[T]) list[T] {
	return list[T]{
		st:    st,
		tbl:   table.New(table.WithStyles(st.Table)),
		id:    id,
		match: match,
		sorts: sorts,
	}
}

// setItems replaces the rows (a live update) and re-applies filter and sort.
func (l *list[T]) setItems(items []T) {
	l.items = items
	l.gen++
	l.sortedOK, l.orderOK = false, false
	l.hay = l.makeHay(items)
	l.apply()
}

func (l *list[T]) makeHay(items []T) []string { return makeHay(l.search, items) }

// setItemsHay is setItems with what the filter searches of items made
// already (nil: make it).
func (l *list[T]) setItemsHay(items []T, hay []string) {
	if hay == nil || len(hay) != len(items) {
		l.setItems(items)
		return
	}
	l.items, l.hay = items, hay
	l.gen++
	l.sortedOK, l.orderOK = false, false
	l.apply()
}

// makeHay lowercases the texts a filter looks in, once per item, into a
// new slice: a view worked out elsewhere may still be reading the last.
func makeHay[T any](search func(T) []string, items []T) []string {
	if search == nil {
		return nil
	}
	hay := make([]string, len(items))
	for i, it := range items {
		// Joined by NUL, which no filter typed holds: a query matches the
		// joined text exactly when it matches one of the texts.
		hay[i] = strings.ToLower(strings.Join(search(it), "\x00"))
	}
	return hay
}

func (l *list[T]) setFilter(q string) {
	l.filter = q
	l.asked.set(l.sort, q)
	if l.async {
		l.stale = true
		return
	}
	l.apply()
}

func (l *list[T]) cycleSort() {
	if len(l.sorts) > 1 {
		l.sort = (l.sort + 1) % len(l.sorts)
		l.asked.set(l.sort, l.filter)
		l.sortedOK, l.orderOK = false, false
		if l.async {
			l.stale = true
			return
		}
		l.apply()
	}
}

// askedView is a sort and a lowercased filter, read and written from
// several goroutines.
type askedView struct {
	mu   sync.Mutex
	sort int
	q    string
}

func (a *askedView) set(sort int, filter string) {
	a.mu.Lock()
	a.sort, a.q = sort, strings.ToLower(filter)
	a.mu.Unlock()
}

func (a *askedView) get() (int, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sort, a.q
}

// viewMsg is a view of a list's items worked out off the UI goroutine.
type viewMsg struct {
	list  any // the *list[T] it is for
	gen   int
	v     listView
	sort  int
	q     string
	selID string // the selection the view was made with
}

// viewCmd starts working out the rows of the filter and sort, when the
// rows on screen are not theirs and no such work is in flight.
func (l *list[T]) viewCmd() tea.Cmd {
	if !l.stale || l.viewing() {
		return nil
	}
	l.busy, l.busyGen = true, l.gen
	j, gen := l.job(), l.gen
	j.y = &yielder{}
	return offUI(func() tea.Msg { return viewMsg{list: l, gen: gen, v: j.run(), sort: j.sort, q: j.q, selID: j.selID} })
}

// viewing says a view of the current items is being worked out.
func (l *list[T]) viewing() bool { return l.busy && l.busyGen == l.gen }

// viewDone takes in a view from viewCmd, if it is this list's and of its
// current items; the rows stay stale when filter or sort moved meanwhile.
func (l *list[T]) viewDone(msg viewMsg) bool {
	if msg.list != any(l) {
		return false
	}
	if msg.gen == l.busyGen {
		l.busy = false
	}
	if msg.gen == l.gen {
		l.take(msg.v, msg.sort, msg.q, msg.selID)
	}
	return true
}

// takeItems takes in items with the view worked out for them elsewhere.
func (l *list[T]) takeItems(items []T, hay []string, v listView, sort int, q, selID string) {
	l.items, l.hay = items, hay
	l.gen++
	l.take(v, sort, q, selID)
}

// take installs a view made for sort and filter q, with the selection of
// the rows on screen (a key may have moved it while the view was made).
func (l *list[T]) take(v listView, sort int, q string, selID string) {
	if selID != l.selID && l.selID != "" {
		is := l.isID(l.selID)
		v.found = slices.IndexFunc(v.order, func(i int32) bool { return is(l.items[i]) })
	}
	l.install(v)
	if sort != l.sort {
		l.sortedOK = false
	}
	l.stale = sort != l.sort || q != strings.ToLower(l.filter)
}

func (l *list[T]) sortName() string {
	if len(l.sorts) == 0 {
		return ""
	}
	return l.sorts[l.sort].name
}

// viewInfo says how the rows are viewed, for the title line.
func (l *list[T]) viewInfo() []string {
	var v []string
	if name := l.sortName(); name != "" {
		if l.stale && !l.sortedOK {
			name += " (sorting…)"
		}
		v = append(v, "sort: "+name)
	}
	switch {
	case l.filter != "" && l.stale && l.orderQ != strings.ToLower(l.filter):
		v = append(v, fmt.Sprintf("filter: %q (filtering %s…)", l.filter, count(len(l.items))))
	case l.filter != "":
		v = append(v, fmt.Sprintf("filter: %q (%d of %d)", l.filter, len(l.order), len(l.items)))
	}
	return v
}

// viewJob is what working out a list's rows needs, copied out of the list
// so that run can do it on another goroutine: everything it reads is left
// unchanged by the list once captured (setItems and apply make new
// slices).
type viewJob[T any] struct {
	items   []T
	hay     []string
	id      func(T) string
	isID    func(id string) func(T) bool
	match   func(T, string) bool
	search  func(T) []string
	keyed   func(i int, items []T) func(a, b int32) int
	ordered func(i int, items []T) []int32
	matched func(q string, items []T) []uint64
	sorts   []sortOrder[T]
	sort    int
	// sorted is every item's index in the sort, nil to sort again; prev
	// and prevQ the last rows and their filter, to narrow from.
	sorted []int32
	prev   []int32
	prevQ  string
	q      string // lowercased
	selID  string
	// y, when set, makes the work give way to the UI goroutine (it runs
	// off it).
	y *yielder
}

// listView is a viewJob's result: the sorted order of all items, the rows
// of the filter, and where the selection is among them (-1: gone).
type listView struct {
	sorted   []int32
	sortedOK bool
	order    []int32
	orderQ   string
	found    int
}

// isIDFunc gives, for an identity, the test of an item having it: the
// list's own (matchID) when set, which need not build every item's
// identity to find the selection among 100,000.
func (l *list[T]) isIDFunc() func(string) func(T) bool {
	if l.matchID != nil {
		return l.matchID
	}
	id := l.id
	return func(want string) func(T) bool { return func(it T) bool { return id(it) == want } }
}

func (l *list[T]) isID(want string) func(T) bool { return l.isIDFunc()(want) }

// job captures the list's rows, filter and sort for a view of them.
func (l *list[T]) job() viewJob[T] {
	j := viewJob[T]{items: l.items, hay: l.hay, id: l.id, isID: l.isIDFunc(), match: l.match, search: l.search, keyed: l.keyed, ordered: l.ordered, matched: l.matched,
		sorts: l.sorts, sort: l.sort, q: strings.ToLower(l.filter), selID: l.selID}
	if l.keyed != nil && l.sortedOK {
		j.sorted = l.sorted
		if l.orderOK {
			j.prev, j.prevQ = l.order, l.orderQ
		}
	}
	return j
}

// run filters and sorts indices, not rows: a row can be hundreds of bytes
// and a connector can have 100,000 of them. A stable sort of the picked
// rows is the pick of a stable sort of all, so the sort comes first and
// is kept (with keyed); a filter that extends the last one picks from the
// last rows.
func (j viewJob[T]) run() listView {
	v := listView{sorted: j.sorted, found: -1}
	if v.sorted == nil && j.keyed != nil && j.ordered != nil && len(j.sorts) > 0 {
		v.sorted = j.ordered(j.sort, j.items)
	}
	if v.sorted == nil {
		v.sorted = make([]int32, len(j.items))
		for i := range j.items {
			v.sorted[i] = int32(i)
		}
		switch {
		case len(j.sorts) == 0:
		case j.keyed != nil:
			// A keyed comparator ends in the row's identity: a total order,
			// so an unstable sort gives the stable sort's order, faster.
			slices.SortFunc(v.sorted, yielding(j.y, j.keyed(j.sort, j.items)))
		default:
			cmp := j.sorts[j.sort].cmp
			slices.SortStableFunc(v.sorted, yielding(j.y, func(a, b int32) int { return cmp(j.items[a], j.items[b]) }))
		}
	}
	v.sortedOK = j.keyed != nil
	q := j.q
	from := v.sorted
	if j.prev != nil && strings.Contains(q, j.prevQ) {
		from = j.prev // every row matching q also matched prevQ
	}
	fast := j.search != nil && len(j.hay) == len(j.items) && !strings.Contains(q, "\x00")
	var bits []uint64
	if fast && q != "" && j.matched != nil {
		bits = j.matched(q, j.items)
	}
	order := make([]int32, 0, len(from))
	for _, i := range from {
		j.y.step()
		switch {
		case q == "":
		case bits != nil:
			if bits[i>>6]&(1<<(i&63)) == 0 {
				continue
			}
		case fast:
			if !strings.Contains(j.hay[i], q) {
				continue
			}
		case j.search != nil:
			if !slices.ContainsFunc(j.search(j.items[i]), func(t string) bool { return strings.Contains(strings.ToLower(t), q) }) {
				continue
			}
		case !j.match(j.items[i], q):
			continue
		}
		order = append(order, i)
	}
	v.order, v.orderQ = order, q
	if j.selID != "" {
		is := j.isID(j.selID)
		v.found = slices.IndexFunc(order, func(i int32) bool { return is(j.items[i]) })
	}
	return v
}

// apply rebuilds rows from items and puts the selection back on the same
// item, at the same height on screen, wherever filter or sort moved it.
func (l *list[T]) apply() {
	l.install(l.job().run())
	l.stale = false
}

// install takes a view of the list's current items.
func (l *list[T]) install(v listView) {
	screenRow := l.cursor - l.offset
	l.sorted, l.sortedOK = v.sorted, v.sortedOK
	l.order, l.orderQ, l.orderOK = v.order, v.orderQ, true
	if v.found >= 0 {
		l.cursor = v.found
		l.offset = v.found - screenRow
	}
	l.clamp()
}

// clamp keeps cursor and offset inside rows and the cursor on screen, and
// records the selection's identity.
func (l *list[T]) clamp() {
	n := len(l.order)
	h := max(l.height, 1)
	l.cursor = min(max(l.cursor, 0), max(n-1, 0))
	l.offset = min(max(l.offset, 0), max(n-h, 0))
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+h {
		l.offset = l.cursor - h + 1
	}
	if n > 0 {
		l.selID = l.id(l.items[l.order[l.cursor]])
	}
}

func (l *list[T]) move(delta int) {
	l.cursor += delta
	l.clamp()
}

func (l *list[T]) pageUp()   { l.move(-max(l.height, 1)) }
func (l *list[T]) pageDown() { l.move(max(l.height, 1)) }
func (l *list[T]) home()     { l.move(-len(l.order)) }
func (l *list[T]) end()      { l.move(len(l.order)) }

func (l *list[T]) selected() (T, bool) {
	if l.cursor < 0 || l.cursor >= len(l.order) {
		var zero T
		return zero, false
	}
	return l.items[l.order[l.cursor]], true
}

// setSize gives the table its width and the number of data rows it shows.
func (l *list[T]) setSize(width, rows int) {
	l.width, l.height = width, max(rows, 1)
	l.clamp() // sync gives the table the size

}

// rows returns the rows after filter and sort.
func (l *list[T]) rows() []T {
	out := make([]T, len(l.order))
	for k, i := range l.order {
		out[k] = l.items[i]
	}
	return out
}

// visible returns the rows on screen.
func (l *list[T]) visible() []T {
	end := min(l.offset+l.height, len(l.order))
	vis := make([]T, 0, max(end-l.offset, 0))
	for _, i := range l.order[l.offset:end] {
		vis = append(vis, l.items[i])
	}
	return vis
}

// sync hands the bubbles table the visible rows, formatted by cells, with a
// "▶" in the first column of the selected one so the selection shows
// without colour too.
func (l *list[T]) sync(cols []table.Column, cells func(T) []string) {
	all := make([]table.Column, 0, len(cols)+1)
	all = append(all, table.Column{Title: " ", Width: 1})
	all = append(all, cols...)
	vis := l.visible()
	rows := make([]table.Row, 0, len(vis))
	for i, it := range vis {
		mark := " "
		row := cells(it)
		if l.offset+i == l.cursor {
			mark = "▶"
			// The selection's own style colours the whole row: a cell's
			// colour would end it midway. Glyphs and words stay.
			for j := range row {
				row[j] = ansi.Strip(row[j])
			}
		}
		rows = append(rows, append(table.Row{mark}, row...))
	}
	// A new table renders its rows once, where each setter of the old one
	// would render them all again: this runs on every key. The cursor is
	// set while the table is one line high (SetCursor renders the rows
	// around it: none then), so that New renders them once, with it.
	c := max(l.cursor-l.offset, 0)
	l.tbl = table.New(table.WithColumns(all), table.WithStyles(l.st.Table), table.WithWidth(l.width),
		table.WithHeight(1), table.WithRows(rows), func(m *table.Model) { m.SetCursor(c) },
		table.WithHeight(l.height+1)) // + the header line
}

// view renders the table, or the header and an explanation when there is
// no row to show.
func (l *list[T]) view(empty string) string {
	if len(l.order) == 0 {
		head := strings.SplitN(l.tbl.View(), "\n", 2)[0]
		body := lipgloss.NewStyle().Width(l.width).Height(l.height).Render(
			l.st.Muted.Render(truncate("  "+empty, l.width)))
		return head + "\n" + body
	}
	return l.tbl.View()
}
