package kit

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
type SortOrder[T any] struct {
	Name string
	Cmp  func(a, b T) int
}

// list is the state behind every table screen: the rows from the Source,
// the filter and sort applied to them, and a selection kept by identity.
//
// It owns scrolling itself and hands the bubbles table only the rows on
// screen: the table keeps its scroll offset private and loses it on
// SetRows, but a live view must keep both the selected row and its place on
// screen while rows arrive, move and re-sort underneath it. Formatting only
// the visible rows also keeps a refresh cheap however many rows there are.
type List[T any] struct {
	st  *Styles
	tbl table.Model
	id  func(T) string
	// matchID, when set, tells an item of an identity as id(item) == id
	// does, without building id(item).
	MatchID func(id string) func(T) bool
	match   func(item T, lowerQuery string) bool
	Sorts   []SortOrder[T]
	Sort    int

	Filter string
	Items  []T // as read from the Source

	// search, when set, gives the texts a filter looks in (instead of
	// match); they are lowercased once per setItems into hay, not on
	// every key typed.
	Search func(T) []string
	Hay    []string
	// keyed, when set, gives sort number i as a comparator of item
	// indices, in the same order as sorts[i].cmp, free to use keys it
	// works out once over items. With it, the sorted order of all items
	// is kept until items or the sort change, and a filter only picks
	// from it: typing a filter sorts nothing. Its comparators must be
	// total orders (end in the item's identity).
	Keyed func(i int, items []T) func(a, b int32) int
	// ordered, when set, gives the order of sort i (keyed's) of items
	// when it kept what makes it cheaper than a sort (nil: sort them).
	Ordered func(i int, items []T) []int32
	// matched, when set, gives which items the lowercased filter q picks
	// (a bit per item, nil: search them), from what it kept of earlier
	// filters of the items' texts (hay).
	Matched  func(q string, items []T) []uint64
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
	Async, Stale, Busy bool
	// asked is the sort and filter last asked for, for work that runs
	// elsewhere to read at its last moment.
	Asked        askedView
	gen, busyGen int

	cursor, offset int    // index into rows of the selection and of the top row
	selID          string // identity of the selected row, "" before the first
	width, height  int    // height counts data rows, not the table header
}

func NewList[T any](st *Styles, id func(T) string, match func(T, string) bool, sorts ...SortOrder[T]) List[T] {
	return List[T]{
		st:    st,
		tbl:   table.New(table.WithStyles(st.Table)),
		id:    id,
		match: match,
		Sorts: sorts,
	}
}

// setItems replaces the rows (a live update) and re-applies filter and sort.
func (l *List[T]) SetItems(items []T) {
	l.Items = items
	l.gen++
	l.sortedOK, l.orderOK = false, false
	l.Hay = l.makeHay(items)
	l.Apply()
}

func (l *List[T]) makeHay(items []T) []string { return MakeHay(l.Search, items) }

// setItemsHay is setItems with what the filter searches of items made
// already (nil: make it).
func (l *List[T]) SetItemsHay(items []T, hay []string) {
	if hay == nil || len(hay) != len(items) {
		l.SetItems(items)
		return
	}
	l.Items, l.Hay = items, hay
	l.gen++
	l.sortedOK, l.orderOK = false, false
	l.Apply()
}

// makeHay lowercases the texts a filter looks in, once per item, into a
// new slice: a view worked out elsewhere may still be reading the last.
func MakeHay[T any](search func(T) []string, items []T) []string {
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

func (l *List[T]) SetFilter(q string) {
	l.Filter = q
	l.Asked.set(l.Sort, q)
	if l.Async {
		l.Stale = true
		return
	}
	l.Apply()
}

func (l *List[T]) CycleSort() {
	if len(l.Sorts) > 1 {
		l.Sort = (l.Sort + 1) % len(l.Sorts)
		l.Asked.set(l.Sort, l.Filter)
		l.sortedOK, l.orderOK = false, false
		if l.Async {
			l.Stale = true
			return
		}
		l.Apply()
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

func (a *askedView) Get() (int, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sort, a.q
}

// viewMsg is a view of a list's items worked out off the UI goroutine.
type ViewMsg struct {
	list  any // the *list[T] it is for
	gen   int
	v     ListView
	sort  int
	q     string
	selID string // the selection the view was made with
}

// viewCmd starts working out the rows of the filter and sort, when the
// rows on screen are not theirs and no such work is in flight.
func (l *List[T]) ViewCmd() tea.Cmd {
	if !l.Stale || l.Viewing() {
		return nil
	}
	l.Busy, l.busyGen = true, l.gen
	j, gen := l.Job(), l.gen
	j.Yield = &Yielder{}
	return OffUI(func() tea.Msg {
		return ViewMsg{list: l, gen: gen, v: j.Run(), sort: j.Sort, q: j.Query, selID: j.SelID}
	})
}

// viewing says a view of the current items is being worked out.
func (l *List[T]) Viewing() bool { return l.Busy && l.busyGen == l.gen }

// viewDone takes in a view from viewCmd, if it is this list's and of its
// current items; the rows stay stale when filter or sort moved meanwhile.
func (l *List[T]) ViewDone(msg ViewMsg) bool {
	if msg.list != any(l) {
		return false
	}
	if msg.gen == l.busyGen {
		l.Busy = false
	}
	if msg.gen == l.gen {
		l.take(msg.v, msg.sort, msg.q, msg.selID)
	}
	return true
}

// takeItems takes in items with the view worked out for them elsewhere.
func (l *List[T]) TakeItems(items []T, hay []string, v ListView, sort int, q, selID string) {
	l.Items, l.Hay = items, hay
	l.gen++
	l.take(v, sort, q, selID)
}

// take installs a view made for sort and filter q, with the selection of
// the rows on screen (a key may have moved it while the view was made).
func (l *List[T]) take(v ListView, sort int, q string, selID string) {
	if selID != l.selID && l.selID != "" {
		is := l.isID(l.selID)
		v.found = slices.IndexFunc(v.order, func(i int32) bool { return is(l.Items[i]) })
	}
	l.install(v)
	if sort != l.Sort {
		l.sortedOK = false
	}
	l.Stale = sort != l.Sort || q != strings.ToLower(l.Filter)
}

func (l *List[T]) SortName() string {
	if len(l.Sorts) == 0 {
		return ""
	}
	return l.Sorts[l.Sort].Name
}

// viewInfo says how the rows are viewed, for the title line.
func (l *List[T]) ViewInfo() []string {
	var v []string
	if name := l.SortName(); name != "" {
		if l.Stale && !l.sortedOK {
			name += " (sorting…)"
		}
		v = append(v, "sort: "+name)
	}
	switch {
	case l.Filter != "" && l.Stale && l.orderQ != strings.ToLower(l.Filter):
		v = append(v, fmt.Sprintf("filter: %q (filtering %s…)", l.Filter, Count(len(l.Items))))
	case l.Filter != "":
		v = append(v, fmt.Sprintf("filter: %q (%d of %d)", l.Filter, len(l.order), len(l.Items)))
	}
	return v
}

// viewJob is what working out a list's rows needs, copied out of the list
// so that run can do it on another goroutine: everything it reads is left
// unchanged by the list once captured (setItems and apply make new
// slices).
type viewJob[T any] struct {
	Items   []T
	Hay     []string
	id      func(T) string
	isID    func(id string) func(T) bool
	match   func(T, string) bool
	search  func(T) []string
	keyed   func(i int, items []T) func(a, b int32) int
	ordered func(i int, items []T) []int32
	matched func(q string, items []T) []uint64
	sorts   []SortOrder[T]
	Sort    int
	// sorted is every item's index in the sort, nil to sort again; prev
	// and prevQ the last rows and their filter, to narrow from.
	Sorted []int32
	Prev   []int32
	prevQ  string
	Query  string // lowercased
	SelID  string
	// y, when set, makes the work give way to the UI goroutine (it runs
	// off it).
	Yield *Yielder
}

// listView is a viewJob's result: the sorted order of all items, the rows
// of the filter, and where the selection is among them (-1: gone).
type ListView struct {
	sorted   []int32
	sortedOK bool
	order    []int32
	orderQ   string
	found    int
}

// isIDFunc gives, for an identity, the test of an item having it: the
// list's own (matchID) when set, which need not build every item's
// identity to find the selection among 100,000.
func (l *List[T]) isIDFunc() func(string) func(T) bool {
	if l.MatchID != nil {
		return l.MatchID
	}
	id := l.id
	return func(want string) func(T) bool { return func(it T) bool { return id(it) == want } }
}

func (l *List[T]) isID(want string) func(T) bool { return l.isIDFunc()(want) }

// job captures the list's rows, filter and sort for a view of them.
func (l *List[T]) Job() viewJob[T] {
	j := viewJob[T]{Items: l.Items, Hay: l.Hay, id: l.id, isID: l.isIDFunc(), match: l.match, search: l.Search, keyed: l.Keyed, ordered: l.Ordered, matched: l.Matched,
		sorts: l.Sorts, Sort: l.Sort, Query: strings.ToLower(l.Filter), SelID: l.selID}
	if l.Keyed != nil && l.sortedOK {
		j.Sorted = l.sorted
		if l.orderOK {
			j.Prev, j.prevQ = l.order, l.orderQ
		}
	}
	return j
}

// run filters and sorts indices, not rows: a row can be hundreds of bytes
// and a connector can have 100,000 of them. A stable sort of the picked
// rows is the pick of a stable sort of all, so the sort comes first and
// is kept (with keyed); a filter that extends the last one picks from the
// last rows.
func (j viewJob[T]) Run() ListView {
	v := ListView{sorted: j.Sorted, found: -1}
	if v.sorted == nil && j.keyed != nil && j.ordered != nil && len(j.sorts) > 0 {
		v.sorted = j.ordered(j.Sort, j.Items)
	}
	if v.sorted == nil {
		v.sorted = make([]int32, len(j.Items))
		for i := range j.Items {
			v.sorted[i] = int32(i)
		}
		switch {
		case len(j.sorts) == 0:
		case j.keyed != nil:
			// A keyed comparator ends in the row's identity: a total order,
			// so an unstable sort gives the stable sort's order, faster.
			slices.SortFunc(v.sorted, Yielding(j.Yield, j.keyed(j.Sort, j.Items)))
		default:
			cmp := j.sorts[j.Sort].Cmp
			slices.SortStableFunc(v.sorted, Yielding(j.Yield, func(a, b int32) int { return cmp(j.Items[a], j.Items[b]) }))
		}
	}
	v.sortedOK = j.keyed != nil
	q := j.Query
	from := v.sorted
	if j.Prev != nil && strings.Contains(q, j.prevQ) {
		from = j.Prev // every row matching q also matched prevQ
	}
	fast := j.search != nil && len(j.Hay) == len(j.Items) && !strings.Contains(q, "\x00")
	var bits []uint64
	if fast && q != "" && j.matched != nil {
		bits = j.matched(q, j.Items)
	}
	order := make([]int32, 0, len(from))
	for _, i := range from {
		j.Yield.Step()
		switch {
		case q == "":
		case bits != nil:
			if bits[i>>6]&(1<<(i&63)) == 0 {
				continue
			}
		case fast:
			if !strings.Contains(j.Hay[i], q) {
				continue
			}
		case j.search != nil:
			if !slices.ContainsFunc(j.search(j.Items[i]), func(t string) bool { return strings.Contains(strings.ToLower(t), q) }) {
				continue
			}
		case !j.match(j.Items[i], q):
			continue
		}
		order = append(order, i)
	}
	v.order, v.orderQ = order, q
	if j.SelID != "" {
		is := j.isID(j.SelID)
		v.found = slices.IndexFunc(order, func(i int32) bool { return is(j.Items[i]) })
	}
	return v
}

// apply rebuilds rows from items and puts the selection back on the same
// item, at the same height on screen, wherever filter or sort moved it.
func (l *List[T]) Apply() {
	l.install(l.Job().Run())
	l.Stale = false
}

// install takes a view of the list's current items.
func (l *List[T]) install(v ListView) {
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
func (l *List[T]) clamp() {
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
		l.selID = l.id(l.Items[l.order[l.cursor]])
	}
}

func (l *List[T]) Move(delta int) {
	l.cursor += delta
	l.clamp()
}

func (l *List[T]) PageUp()   { l.Move(-max(l.height, 1)) }
func (l *List[T]) PageDown() { l.Move(max(l.height, 1)) }
func (l *List[T]) Home()     { l.Move(-len(l.order)) }
func (l *List[T]) End()      { l.Move(len(l.order)) }

func (l *List[T]) Selected() (T, bool) {
	if l.cursor < 0 || l.cursor >= len(l.order) {
		var zero T
		return zero, false
	}
	return l.Items[l.order[l.cursor]], true
}

// setSize gives the table its width and the number of data rows it shows.
func (l *List[T]) SetSize(width, rows int) {
	l.width, l.height = width, max(rows, 1)
	l.clamp() // sync gives the table the size

}

// rows returns the rows after filter and sort.
func (l *List[T]) Rows() []T {
	out := make([]T, len(l.order))
	for k, i := range l.order {
		out[k] = l.Items[i]
	}
	return out
}

// visible returns the rows on screen.
func (l *List[T]) visible() []T {
	end := min(l.offset+l.height, len(l.order))
	vis := make([]T, 0, max(end-l.offset, 0))
	for _, i := range l.order[l.offset:end] {
		vis = append(vis, l.Items[i])
	}
	return vis
}

// sync hands the bubbles table the visible rows, formatted by cells, with a
// "▶" in the first column of the selected one so the selection shows
// without colour too.
func (l *List[T]) Sync(cols []table.Column, cells func(T) []string) {
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
func (l *List[T]) View(empty string) string {
	if len(l.order) == 0 {
		head := strings.SplitN(l.tbl.View(), "\n", 2)[0]
		body := lipgloss.NewStyle().Width(l.width).Height(l.height).Render(
			l.st.Muted.Render(Truncate("  "+empty, l.width)))
		return head + "\n" + body
	}
	return l.tbl.View()
}
