package keymap

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
)

// A key bound twice in one scope would make one of the two actions
// unreachable: the user presses it and gets the other.
func TestNoSharedKeysWithinScope(t *testing.T) {
	for scope, bindings := range Default().Scopes() {
		seen := map[string]string{}
		for _, b := range bindings {
			if !b.Enabled() {
				continue
			}
			for _, k := range b.Keys() {
				if other, dup := seen[k]; dup {
					t.Errorf("scope %s: key %q is bound to both %q and %q", scope, k, other, b.Help().Desc)
				}
				seen[k] = b.Help().Desc
			}
		}
	}
}

// Every binding shows up in the help view with a label and a description.
func TestEveryBindingHasHelp(t *testing.T) {
	km := Default()
	v := reflect.ValueOf(km)
	for i := range v.NumField() {
		b := v.Field(i).Interface().(key.Binding)
		name := v.Type().Field(i).Name
		if len(b.Keys()) == 0 {
			t.Errorf("%s has no keys", name)
		}
		if b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("%s has no help text: %+v", name, b.Help())
		}
	}
}

// Every binding is in at least one scope, so the duplicate check covers it.
func TestEveryBindingIsScoped(t *testing.T) {
	km := Default()
	scoped := map[string]bool{}
	for _, bs := range km.Scopes() {
		for _, b := range bs {
			scoped[b.Help().Key+"\x00"+b.Help().Desc] = true
		}
	}
	v := reflect.ValueOf(km)
	for i := range v.NumField() {
		b := v.Field(i).Interface().(key.Binding)
		if !scoped[b.Help().Key+"\x00"+b.Help().Desc] {
			t.Errorf("%s is in no scope", v.Type().Field(i).Name)
		}
	}
}

// The edit actions are on the keys the help and the docs name; a change
// here is a change operators' fingers notice.
func TestEditKeys(t *testing.T) {
	km := Default()
	want := map[string]key.Binding{"e": km.EditOffset, "x": km.ResetOffset, "X": km.ResetAll,
		"n": km.NewPartition, "S": km.Stop, "R": km.Resume, "u": km.Undo, "c": km.Copy, "N": km.Rename,
		"K": km.Rekey, "M": km.Move, "C": km.Create, "T": km.RewindTime, "t": km.ToCommit}
	for k, b := range want {
		if got := b.Keys(); len(got) != 1 || got[0] != k {
			t.Errorf("%s: bound to %v, want %q", b.Help().Desc, got, k)
		}
	}
	if n := len(km.EditBindings()); n != len(want) {
		t.Errorf("EditBindings has %d bindings, want %d", n, len(want))
	}
}

// A read-only session disables every edit binding through EditBindings, so
// they must be the KeyMap's own fields, not copies.
func TestEditBindingsPointIntoTheKeyMap(t *testing.T) {
	km := Default()
	for _, b := range km.EditBindings() {
		b.SetEnabled(false)
	}
	for _, b := range []key.Binding{km.EditOffset, km.ResetOffset, km.ResetAll, km.NewPartition, km.Stop, km.Resume, km.Undo, km.Copy, km.Rename, km.Rekey, km.Move, km.RewindTime, km.ToCommit} {
		if b.Enabled() {
			t.Errorf("%s is still enabled", b.Help().Desc)
		}
	}
}

// While a text input has focus (filter, offset editor, the name prompt of
// the confirmation dialog), a printable key must type, not act: "q" in a
// filter is the letter q.
func TestTextScopesHaveNoPrintableKeys(t *testing.T) {
	scopes := Default().Scopes()
	for _, scope := range TextScopes {
		if len(scopes[scope]) == 0 {
			t.Errorf("scope %s has no bindings", scope)
		}
		for _, b := range scopes[scope] {
			for _, k := range b.Keys() {
				if utf8.RuneCountInString(k) == 1 || k == "space" {
					t.Errorf("%s binding %q uses printable key %q", scope, b.Help().Desc, k)
				}
			}
		}
	}
}

// Default returns a fresh value: rebinding one copy (one SSH session) must
// not change another.
func TestDefaultIsAFreshValue(t *testing.T) {
	a, b := Default(), Default()
	a.Quit.SetKeys("x")
	if got := b.Quit.Keys(); len(got) != 2 || got[0] != "q" {
		t.Fatalf("rebinding one KeyMap changed another: %v", got)
	}
}

// y (copy) and : (switch context) are on every screen, next to the edit
// keys: they must not take one of their keys, and, reading only, they are
// not edit bindings, so read-only sessions keep them.
func TestCopyAndContextKeys(t *testing.T) {
	km := Default()
	for k, b := range map[string]key.Binding{"y": km.Clipboard, ":": km.Context} {
		if got := b.Keys(); len(got) != 1 || got[0] != k {
			t.Errorf("%s: bound to %v, want %q", b.Help().Desc, got, k)
		}
		for _, e := range km.EditBindings() {
			if e.Help() == b.Help() {
				t.Errorf("%s is an edit binding: read-only would disable it", b.Help().Desc)
			}
			for _, ek := range e.Keys() {
				if ek == k {
					t.Errorf("%q is both %s and %s", k, b.Help().Desc, e.Help().Desc)
				}
			}
		}
	}
	for _, scope := range []string{ScopeTable, ScopeDetail} {
		for _, want := range []key.Binding{km.Clipboard, km.Context} {
			found := false
			for _, b := range km.Scopes()[scope] {
				found = found || b.Help() == want.Help()
			}
			if !found {
				t.Errorf("scope %s lacks %s", scope, want.Help().Desc)
			}
		}
	}
}
