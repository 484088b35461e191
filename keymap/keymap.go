// Package keymap holds koff's key bindings: one KeyMap value of
// key.Bindings, each with help text, grouped into the scopes in which they
// are active together. It holds nothing else: no handlers, no globals, so
// every SSH session under `koff serve` can own and rebind its copy.
package keymap

import "charm.land/bubbles/v2/key"

// KeyMap is every key koff's dashboard reacts to.
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

	// Clipboard copies the selected row (an offset's JSON, a sink's
	// committed offset, a connector's name) to the terminal's clipboard
	// with OSC 52, which reaches the operator's machine over SSH and
	// through tmux. It reads only, so read-only sessions keep it.
	Clipboard key.Binding
	// Context opens the context picker: switching restarts koff on
	// another context of the config file.
	Context key.Binding

	// Edit actions on the connectors, partitions and sink tables. Each leads
	// to a confirmation dialog (Stop and Resume ask too, naming the
	// connector and its state, and are audited like edits; both are
	// undone by the other). They are disabled in read-only sessions.
	EditOffset   key.Binding // the selected source partition's offset
	ResetOffset  key.Binding // tombstone the selected source partition
	ResetAll     key.Binding // every offset of the selected connector
	NewPartition key.Binding // an offset for a source partition not stored yet
	Stop, Resume key.Binding // the selected connector, through Connect REST
	Undo         key.Binding // the last edit in the audit log
	// Copy gives another connector (named in a prompt) the selected
	// connector's offsets: how an orphan's offsets reach its successor.
	Copy key.Binding
	// Rename gives the selected connector a new name with its config and
	// offsets (koff rename OLD NEW): a prompt asks for the name, the plan
	// of every step is confirmed by typing it.
	Rename key.Binding
	// Rekey gives the selected source connector's partitions a new value
	// of a field (koff rekey NAME --set F=V), with the config it comes
	// from; Move takes it to another Connect cluster, a context (koff move
	// NAME --to-context CTX), confirmed by typing its name.
	Rekey, Move key.Binding
	// Create makes a new connector like the selected one (koff create):
	// its config as editable JSON, a name, where its offsets come from and
	// the state it starts in; the plan of every step confirmed by enter.
	Create key.Binding
	// RewindTime puts a source connector back to where it was at a time
	// (koff set NAME --to-datetime T): a dialog asks for the time.
	RewindTime key.Binding
	// In the partition detail's history, NewerCommit and OlderCommit
	// choose a commit and ToCommit edits the partition to its value.
	NewerCommit, OlderCommit, ToCommit key.Binding

	// In the rewind dialog (a one-line input for the time), IfNewer
	// cycles what it does with a partition it cannot place at the time.
	IfNewer key.Binding

	// While the filter input has focus, printable keys are text: only these
	// bindings act, so none of them may be a printable key.
	FilterUp, FilterDown     key.Binding
	FilterApply, FilterClear key.Binding
	ForceQuit                key.Binding

	// In the offset editor (a textarea), printable keys are text too.
	// Submit opens the confirmation; enter submits only when the JSON is
	// valid, and otherwise inserts a newline.
	FormSubmit, FormNext, FormCancel key.Binding
	// Choice changes a form's choice field (the create dialog's offsets
	// and start state) while it has focus.
	Choice key.Binding

	// In the sink offsets form (a one-line input for N or a time), the
	// strategy is chosen with StrategyUp/Down and Scope toggles between the
	// selected topic-partition and all of them; FormSubmit and FormCancel
	// act as in the offset editor.
	StrategyUp, StrategyDown, Scope key.Binding

	// On a stray copy of a source partition (a key its task does not
	// read), e and x open a choice: delete this copy only, or act on the
	// partition (its live offset).
	StrayDelete, StrayPartition key.Binding

	// In the context picker, printable keys type its filter, so none of
	// these may be printable either.
	PickerUp, PickerDown, PickerSelect, PickerCancel key.Binding

	// In the confirmation dialog, printable keys type the connector's name
	// (reset all), so none of these may be printable either.
	Confirm, StopApplyResume, Cancel key.Binding
	DialogUp, DialogDown             key.Binding
	DialogPageUp, DialogPageDown     key.Binding

	// ctrl+c while a dialog is open asks first: QuitYes quits, QuitNo
	// goes back to the dialog as it was.
	QuitYes, QuitNo key.Binding
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

		Clipboard: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy to clipboard")),
		Context:   key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "switch context")),

		EditOffset:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit offset")),
		ResetOffset:  key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "reset offset")),
		ResetAll:     key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "reset connector")),
		NewPartition: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new partition")),
		Stop:         key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "stop connector")),
		Resume:       key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "resume connector")),
		Undo:         key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo last edit")),
		Copy:         key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy offsets to another connector")),
		Rename:       key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "rename connector")),
		Rekey:        key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "rekey partitions")),
		Move:         key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "move to another Connect cluster")),
		Create:       key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "create a connector like this one")),
		RewindTime:   key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "rewind to a time")),
		NewerCommit:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "newer commit")),
		OlderCommit:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "older commit")),
		ToCommit:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "edit offset to this commit")),
		IfNewer:      key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "partitions newer than the time")),

		FilterUp:    key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "up")),
		FilterDown:  key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "down")),
		FilterApply: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		FilterClear: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear")),
		ForceQuit:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),

		// ctrl+s reaches the program over SSH and in tmux: Bubble Tea puts
		// the terminal in raw mode, which turns XON/XOFF flow control off.
		FormSubmit: key.NewBinding(key.WithKeys("enter", "ctrl+s"), key.WithHelp("enter/ctrl+s", "review")),
		FormNext:   key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "next field")),
		FormCancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Choice:     key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "choose")),

		StrategyUp:   key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous strategy")),
		StrategyDown: key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next strategy")),
		Scope:        key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "selected/all partitions")),

		StrayDelete:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete this stray copy only")),
		StrayPartition: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "edit the partition's live offset")),

		PickerUp:     key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "previous context")),
		PickerDown:   key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "next context")),
		PickerSelect: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "switch")),
		PickerCancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),

		Confirm:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "apply")),
		StopApplyResume: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "stop → apply → resume")),
		Cancel:          key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		DialogUp:        key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "scroll up")),
		DialogDown:      key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "scroll down")),
		DialogPageUp:    key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		DialogPageDown:  key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),

		QuitYes: key.NewBinding(key.WithKeys("y", "ctrl+c"), key.WithHelp("y/ctrl+c", "quit koff")),
		QuitNo:  key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "back to the dialog")),
	}
}

// EditBindings are the bindings that change something: a read-only session
// disables all of them.
func (k *KeyMap) EditBindings() []*key.Binding {
	return []*key.Binding{&k.EditOffset, &k.ResetOffset, &k.ResetAll, &k.NewPartition, &k.Stop, &k.Resume, &k.Undo, &k.Copy, &k.Rename, &k.Rekey, &k.Move, &k.Create, &k.RewindTime, &k.ToCommit}
}

// Scope names, as returned by Scopes.
const (
	ScopeTable  = "table"  // connectors, partitions and unparseable tables
	ScopeDetail = "detail" // the partition detail view
	ScopeFilter = "filter" // while typing a filter
	ScopeForm   = "form"   // while typing JSON in the offset editor, or a name in the copy or rename prompt
	ScopeSink   = "sink"   // the sink offsets form (strategy, scope and a one-line input)
	ScopeDialog = "dialog" // the confirmation dialog (may hold a name input)
	ScopePicker = "picker" // the context picker (a filter input over context names)
	ScopeStray  = "stray"  // the choice on a stray copy of a source partition
	ScopeRewind = "rewind" // the rewind dialog (a one-line input for the time)
	ScopeQuit   = "quit"   // ctrl+c over an open dialog: quit or go back
)

// TextScopes are the scopes in which printable keys must reach a text input.
var TextScopes = []string{ScopeFilter, ScopeForm, ScopeSink, ScopeDialog, ScopePicker, ScopeRewind}

// Scopes returns the bindings that are active at the same time, by scope:
// within one scope no two enabled bindings may share a key.
func (k KeyMap) Scopes() map[string][]key.Binding {
	move := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}
	global := []key.Binding{k.Back, k.Unparseable, k.Help, k.Quit, k.Clipboard, k.Context}
	edits := []key.Binding{k.EditOffset, k.ResetOffset, k.ResetAll, k.NewPartition, k.Stop, k.Resume, k.Undo, k.Copy, k.Rename, k.Rekey, k.Move, k.Create, k.RewindTime}
	return map[string][]key.Binding{
		ScopeTable:  concat(move, global, []key.Binding{k.Open, k.Filter, k.Sort}, edits),
		ScopeDetail: concat(move, global, []key.Binding{k.NewerCommit, k.OlderCommit, k.ToCommit}, edits),
		ScopeFilter: {k.FilterUp, k.FilterDown, k.FilterApply, k.FilterClear, k.ForceQuit},
		ScopeForm:   {k.FormSubmit, k.FormNext, k.FormCancel, k.Choice, k.ForceQuit},
		ScopeSink:   {k.StrategyUp, k.StrategyDown, k.Scope, k.FormSubmit, k.FormCancel, k.ForceQuit},
		ScopeDialog: {k.Confirm, k.StopApplyResume, k.Cancel, k.DialogUp, k.DialogDown,
			k.DialogPageUp, k.DialogPageDown, k.ForceQuit},
		ScopePicker: {k.PickerUp, k.PickerDown, k.PickerSelect, k.PickerCancel, k.ForceQuit},
		ScopeStray:  {k.StrayDelete, k.StrayPartition, k.FormCancel, k.ForceQuit},
		ScopeRewind: {k.IfNewer, k.FormSubmit, k.FormCancel, k.ForceQuit},
		ScopeQuit:   {k.QuitYes, k.QuitNo},
	}
}

func concat(groups ...[]key.Binding) []key.Binding {
	var all []key.Binding
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}
