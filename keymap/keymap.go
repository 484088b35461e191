// Package keymap holds koff's key bindings: one KeyMap value of
// key.Bindings, each with help text, grouped into the scopes in which they
// are active together. It holds nothing else: no handlers, no globals, so
// every SSH session under `koff serve` can own and rebind its copy.
package keymap

import "charm.land/bubbles/v2/key"

// KeyMap is every key koff's dashboard reacts to.
//
// Keys reserved for the edit actions that come later (e, x, X, n, S, R, u)
// are deliberately unbound; TestReservedEditKeysAreFree keeps them free.
type KeyMap struct {
	// Moving the selection in a table, or scrolling the detail view.
	Up, Down, PageUp, PageDown, Home, End key.Binding

	// Open drills into the selected row; Back returns to the previous screen
	// (or clears an applied filter first).
	Open, Back key.Binding
	// Filter opens the filter input; Sort cycles the sort order.
	Filter, Sort key.Binding

	// Unparseable opens the unparseable-records view from anywhere.
	Unparseable key.Binding
	Help        key.Binding
	Quit        key.Binding

	// While the filter input has focus, printable keys are text: only these
	// bindings act, so none of them may be a printable key.
	FilterUp, FilterDown     key.Binding
	FilterApply, FilterClear key.Binding
	ForceQuit                key.Binding
}

// Default returns the standard bindings.
func Default() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Home:     key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first")),
		End:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),

		Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Filter: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Sort:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort")),

		Unparseable: key.NewBinding(key.WithKeys("U"), key.WithHelp("U", "unparseable")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),

		FilterUp:    key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "up")),
		FilterDown:  key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "down")),
		FilterApply: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		FilterClear: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear")),
		ForceQuit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	}
}

// Scope names, as returned by Scopes.
const (
	ScopeTable  = "table"  // connectors, partitions and unparseable tables
	ScopeDetail = "detail" // the partition detail view
	ScopeFilter = "filter" // while typing a filter
)

// Scopes returns the bindings that are active at the same time, by scope:
// within one scope no two enabled bindings may share a key.
func (k KeyMap) Scopes() map[string][]key.Binding {
	move := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}
	global := []key.Binding{k.Back, k.Unparseable, k.Help, k.Quit}
	return map[string][]key.Binding{
		ScopeTable:  concat(move, global, []key.Binding{k.Open, k.Filter, k.Sort}),
		ScopeDetail: concat(move, global),
		ScopeFilter: {k.FilterUp, k.FilterDown, k.FilterApply, k.FilterClear, k.ForceQuit},
	}
}

func concat(groups ...[]key.Binding) []key.Binding {
	var all []key.Binding
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}
