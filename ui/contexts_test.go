package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"koff/ui/kit"

	"github.com/charmbracelet/x/exp/golden"
)

// contextModel is the dashboard on the demo store in context prod of
// three, with opts changed by change.
func contextModel(t *testing.T, w, h int, change func(*Options)) (*fixture, *Model) {
	t.Helper()
	f := demoStore()
	o := Options{
		Source:      f.store,
		Bootstrap:   "kafka-1.prod.internal:9092,kafka-2.prod.internal:9092",
		Topics:      []string{topic},
		Now:         func() time.Time { return t0 },
		Contexts:    []string{"dev", "staging", "prod"},
		Context:     "prod",
		Accent:      "red",
		ContextFile: "/home/op/.config/koff/config.yaml",
	}
	if change != nil {
		change(&o)
	}
	m := New(o)
	send(t, m, size(w, h))
	return f, m
}

func TestColonOpensThePicker(t *testing.T) {
	_, m := contextModel(t, 80, 24, nil)
	send(t, m, press(":")...)
	if m.picker == nil {
		t.Fatal(": did not open the context picker")
	}
	requireContains(t, m, "Switch context", "▶ prod", "● current", "dev", "staging")
}

func TestPickerFilters(t *testing.T) {
	_, m := contextModel(t, 80, 24, nil)
	send(t, m, press(":", "d")...)
	if got := strings.Join(m.picker.Matches, ","); got != "dev,prod" {
		t.Fatalf("after d: %s", got)
	}
	requireContains(t, m, "Switch context · 2 of 3", "▶ prod") // the selection stays on a name that still matches
	send(t, m, press("e")...)
	if got := strings.Join(m.picker.Matches, ","); got != "dev" {
		t.Fatalf("after de: %s", got)
	}
	requireContains(t, m, "▶ dev")
	send(t, m, press("x")...)
	requireContains(t, m, `no context contains "dex"`)
	if cmd := send(t, m, press("enter")...); cmd != nil || m.picker == nil {
		t.Fatal("enter with nothing matching did something")
	}
	send(t, m, press("backspace", "backspace", "backspace", "S", "T")...) // case-insensitive
	if got := strings.Join(m.picker.Matches, ","); got != "staging" {
		t.Fatalf("after ST: %s", got)
	}
}

func TestPickerSwitchesAndQuits(t *testing.T) {
	_, m := contextModel(t, 80, 24, nil)
	send(t, m, press(":")...)
	send(t, m, press("up")...) // prod → staging
	cmd := send(t, m, press("enter")...)
	if !isQuit(cmd) {
		t.Fatal("enter on another context did not quit")
	}
	if got := m.SwitchTo(); got != "staging" {
		t.Fatalf("SwitchTo() = %q, want staging", got)
	}
}

func TestPickerTypedSwitch(t *testing.T) {
	_, m := contextModel(t, 80, 24, nil)
	send(t, m, press(":", "dev")...)
	if !isQuit(send(t, m, press("enter")...)) || m.SwitchTo() != "dev" {
		t.Fatalf("typing dev and enter: SwitchTo() = %q", m.SwitchTo())
	}
}

func TestPickerEnterOnCurrentStays(t *testing.T) {
	_, m := contextModel(t, 80, 24, nil)
	send(t, m, press(":")...)
	if cmd := send(t, m, press("enter")...); isQuit(cmd) {
		t.Fatal("enter on the current context quit")
	}
	if m.picker != nil {
		t.Fatal("enter on the current context left the picker open")
	}
	if m.SwitchTo() != "" {
		t.Fatalf("SwitchTo() = %q after staying", m.SwitchTo())
	}
	requireLacks(t, m, "Switch context")
}

func TestPickerEscCancels(t *testing.T) {
	_, m := contextModel(t, 80, 24, nil)
	send(t, m, press(":", "down", "esc")...)
	if m.picker != nil || m.SwitchTo() != "" {
		t.Fatalf("esc: picker open %v, SwitchTo %q", m.picker != nil, m.SwitchTo())
	}
	// q is a letter in the picker, and quitting after it switches nothing.
	send(t, m, press(":", "q")...)
	if m.picker == nil || m.picker.Input.Value() != "q" {
		t.Fatal("q did not type into the picker's filter")
	}
	// ctrl+c over the picker asks first; a second one quits.
	if isQuit(send(t, m, press("ctrl+c")...)) || m.quit == nil {
		t.Fatal("ctrl+c in the picker quit without asking")
	}
	if !isQuit(send(t, m, press("ctrl+c")...)) || m.SwitchTo() != "" {
		t.Fatalf("ctrl+c in the picker: SwitchTo %q", m.SwitchTo())
	}
}

func TestColonWithoutContextsSaysWhere(t *testing.T) {
	_, m := contextModel(t, 80, 24, func(o *Options) { o.Contexts, o.Context = nil, "" })
	send(t, m, press(":")...)
	if m.picker != nil {
		t.Fatal("the picker opened with no contexts")
	}
	requireStatus(t, m, "no contexts to switch to: define them in /home/op/.config/koff/config.yaml")

	_, m = contextModel(t, 80, 24, func(o *Options) { o.Contexts, o.Context, o.ContextFile = nil, "", "" })
	send(t, m, press(":")...)
	requireStatus(t, m, "no contexts to switch to")
}

// The context's name is in the header as a word: without colour it still
// says which cluster this is. With colour, it sits on the accent.
func TestHeaderContextBadge(t *testing.T) {
	_, m := contextModel(t, 80, 24, nil)
	header := strings.Split(screenText(m), "\n")[0]
	if !strings.Contains(header, "context prod  kafka-1") {
		t.Fatalf("header lacks the context: %q", header)
	}
	raw := m.View().Content
	if !strings.Contains(raw, "48;2;209;36;47") { // red's #D1242F as background
		t.Errorf("the context badge is not on the red accent: %q", strings.Split(raw, "\n")[0])
	}
	_, m = contextModel(t, 80, 24, func(o *Options) { o.Context = "" })
	requireLacks(t, m, "context ")
}

func TestParseAccent(t *testing.T) {
	for _, ok := range []string{"", "red", "Yellow", "blue", "#ff8800", "#f80", "202"} {
		if _, err := ParseAccent(ok); err != nil {
			t.Errorf("ParseAccent(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"rouge", "#12345", "#gggggg", "256", "-1"} {
		if _, err := ParseAccent(bad); err == nil {
			t.Errorf("ParseAccent(%q) accepted it", bad)
		}
	}
	if c, _ := ParseAccent(""); c != nil {
		t.Error("the default accent is not nil")
	}
}

// An invalid accent (the CLI should refuse it first) is the default, not
// a crash or a colourless badge.
func TestInvalidAccentIsTheDefault(t *testing.T) {
	_, m := contextModel(t, 80, 24, func(o *Options) { o.Accent = "rouge" })
	want := kit.NewStyles(true).Context.Render(" prod ")
	if !strings.Contains(m.View().Content, want) {
		t.Fatal("an invalid accent did not fall back to the default")
	}
}

// goldenContexts: the header's badges and the picker.
var goldenContexts = []struct {
	name   string
	change func(*Options)
	drive  func(t *testing.T, m *Model)
}{
	{"context_badge", nil, func(t *testing.T, m *Model) {}},
	{"all_badges", func(o *Options) { o.ReadOnly, o.Insecure = true, true }, func(t *testing.T, m *Model) {}},
	{"all_badges_partitions", func(o *Options) { o.ReadOnly, o.Insecure = true, true }, func(t *testing.T, m *Model) {
		openConnectorNamed(t, m, "jdbc-orders")
	}},
	{"insecure_no_context", func(o *Options) { o.Context, o.Contexts, o.Insecure = "", nil, true }, func(t *testing.T, m *Model) {}},
	{"picker", nil, func(t *testing.T, m *Model) {
		send(t, m, press(":")...)
	}},
	{"picker_filtered", func(o *Options) { o.ReadOnly, o.Insecure = true, true }, func(t *testing.T, m *Model) {
		send(t, m, press(":", "d")...)
	}},
	{"copied", nil, func(t *testing.T, m *Model) {
		selectPartition(t, m, "jdbc-orders", "rders")
		send(t, m, press("y")...)
	}},
}

func TestGoldenContexts(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {160, 48}} {
		for _, sc := range goldenContexts {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				_, m := contextModel(t, sz[0], sz[1], sc.change)
				sc.drive(t, m)
				out := screenText(m)
				requireFits(t, out, sz[0], sz[1])
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// Many contexts scroll inside the box, which stays on the screen, with the
// selection in view.
func TestPickerScrollsManyContexts(t *testing.T) {
	var names []string
	for i := range 40 {
		names = append(names, fmt.Sprintf("cluster-%02d", i))
	}
	_, m := contextModel(t, 80, 24, func(o *Options) { o.Contexts, o.Context = names, "cluster-00" })
	send(t, m, press(":")...)
	for range 30 {
		send(t, m, press("down")...)
	}
	out := screenText(m)
	requireFits(t, out, 80, 24)
	requireContains(t, m, "▶ cluster-30", "↑/↓ move")
	if strings.Contains(out, "│   cluster-00") {
		t.Errorf("the list did not scroll:\n%s", out)
	}
	if !isQuit(send(t, m, press("enter")...)) || m.SwitchTo() != "cluster-30" {
		t.Fatalf("SwitchTo() = %q", m.SwitchTo())
	}
}
