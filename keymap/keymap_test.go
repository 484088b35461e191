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

// The edit actions that come next need these keys; binding one now would
// silently change what it does later.
func TestReservedEditKeysAreFree(t *testing.T) {
	reserved := []string{"e", "x", "X", "n", "S", "R", "u"}
	for scope, bindings := range Default().Scopes() {
		for _, b := range bindings {
			for _, k := range b.Keys() {
				for _, r := range reserved {
					if k == r {
						t.Errorf("scope %s: reserved edit key %q is bound to %q", scope, k, b.Help().Desc)
					}
				}
			}
		}
	}
}

// While the filter has focus, a printable key must type, not act: "q" in a
// filter is the letter q.
func TestFilterScopeHasNoPrintableKeys(t *testing.T) {
	for _, b := range Default().Scopes()[ScopeFilter] {
		for _, k := range b.Keys() {
			if utf8.RuneCountInString(k) == 1 {
				t.Errorf("filter binding %q uses printable key %q", b.Help().Desc, k)
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
