package ui

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"koff/model"
)

// hostileSGR is a colour change a hostile producer hides in a name: the
// frame guard keeps SGR (styles use it), so only the screens' own
// sanitising keeps it from the frame.
const hostileSGR = "\x1b[38;5;196;7m"

// uiHostile is every kind of byte a terminal acts on: SGR, CSI, OSC, C0,
// DEL, C1 (CSI, OSC, ST, NEL), bidi overrides and isolates, marks, the line
// separators.
const uiHostile = hostileSGR + "\x1b[2J\x1b]0;owned\x07\x00\x08\r\n\t\x7f\u009b31m\u009d0;x\u009c\u0085\u202e\u202a\u2066\u2069\u200e\u200f\u061c\u2028\u2029"

func uiJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

var sgrSeq = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// requireNoRawControl fails if the frame has a byte a terminal acts on,
// other than the styles' own SGR sequences and the newlines between lines.
func requireNoRawControl(t *testing.T, where string, m *Model) {
	t.Helper()
	frame := m.View().Content
	if strings.Contains(frame, hostileSGR) {
		t.Errorf("%s: a hostile SGR sequence reached the frame raw:\n%s", where, ansiStripSafe(frame))
	}
	rest := sgrSeq.ReplaceAllString(frame, "")
	for i := 0; i < len(rest); {
		c := rest[i]
		if c < 0x80 {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				t.Errorf("%s: raw %q in the frame near %q", where, c, rest[max(0, i-40):min(len(rest), i+10)])
				return
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(rest[i:])
		if r == utf8.RuneError && n == 1 || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
			r == 0x200e || r == 0x200f || r == 0x061c || r == 0x2028 || r == 0x2029 {
			t.Errorf("%s: raw %U in the frame near %q", where, r, rest[max(0, i-40):min(len(rest), i+10)])
			return
		}
		i += n
	}
}

func ansiStripSafe(s string) string { return strings.ToValidUTF8(sgrSeq.ReplaceAllString(s, ""), "?") }

// Nothing from the offsets topic, Connect's REST API, the sink poller, the
// tailer's errors or the editor's errors reaches the dashboard's frame raw,
// on any screen or dialog; a 1 MB key is cut, saying so.
func TestNoRawControlReachesTheFrame(t *testing.T) {
	f, ed, m := editModel(t, 120, 40, nil)
	name := "evil" + uiHostile
	part := `{"f":` + uiJSON("p"+uiHostile) + `}`
	f.put(t0.Add(-time.Second), `[`+uiJSON(name)+`,`+part+`]`, `{"o":`+uiJSON("v"+uiHostile)+`}`)
	f.put(t0.Add(-time.Second), `["big",{"k":"`+strings.Repeat("x", 1<<20)+`"}]`, `{"o":"`+strings.Repeat("y", 1<<20)+`"}`)
	f.putAt(t0, "raw"+uiHostile, "\xff"+uiHostile, 2)
	f.store.SetStatus(model.TailStatus{State: model.TailDisconnected, Reason: "broker:" + uiHostile, Since: t0,
		Reloaded: t0, ReloadReason: "cluster" + uiHostile})
	sink := "sink" + uiHostile
	f.store.SetREST(model.RESTStatus{URL: "http://connect:8083", Version: "4.1.1" + uiHostile, At: t0, Err: "Connect REST: 500 " + uiHostile,
		Connectors: map[string]model.ConnectorState{
			name: {Name: name, Type: "source", State: "RUNNING" + uiHostile, WorkerID: "w" + uiHostile,
				Tasks: []model.TaskState{{ID: 0, State: "FAILED" + uiHostile, WorkerID: "w" + uiHostile, Trace: "trace" + uiHostile}}},
			sink: {Name: sink, Type: "sink", State: "RUNNING", Tasks: []model.TaskState{{ID: 0, State: "RUNNING", WorkerID: "w"}},
				Config: map[string]string{"consumer.override.group.id": "g" + uiHostile}},
		}})
	f.setGroups(t0, model.GroupPoll{Group: "g" + uiHostile, State: "Stable" + uiHostile, Members: 1, Clients: []string{"c" + uiHostile},
		Partitions: []model.GroupPartition{{TopicPartition: model.TopicPartition{Topic: "t" + uiHostile, Partition: 0}, Committed: 1}}})
	ed.planErr = errors.New("Connect REST: 409 " + uiHostile)
	send(t, m, tickMsg{})

	requireNoRawControl(t, "connectors", m)
	if strings.Contains(m.View().Content, strings.Repeat("x", 4096)) {
		t.Error("a 1 MB key is drawn whole")
	}
	send(t, m, press("/", "e", "v", "i", "l")...)
	requireNoRawControl(t, "connectors filtered", m)
	send(t, m, press("esc")...)
	for _, k := range []string{"down", "down", "down"} {
		send(t, m, press(k)...)
		requireNoRawControl(t, "connectors moving", m)
	}
	send(t, m, press("home")...)
	for range 12 {
		requireNoRawControl(t, "connectors", m)
		send(t, m, press("enter")...)
		requireNoRawControl(t, "a connector's screen", m)
		send(t, m, press("enter")...)
		requireNoRawControl(t, "a partition's detail", m)
		send(t, m, press("end")...)
		requireNoRawControl(t, "a partition's detail, scrolled", m)
		send(t, m, press("esc")...)
		pressSettle(t, m, "e")
		requireNoRawControl(t, "the edit form", m)
		send(t, m, press("esc")...)
		pressSettle(t, m, "x")
		requireNoRawControl(t, "the reset dialog or its error", m)
		send(t, m, press("esc", "esc", "esc")...)
		send(t, m, press("down")...)
	}
	send(t, m, press("U")...)
	requireNoRawControl(t, "unparseable records", m)
	send(t, m, press("esc", "?")...)
	requireNoRawControl(t, "help", m)
	send(t, m, press("esc")...)
	pressSettle(t, m, "X")
	requireNoRawControl(t, "a plan's error in the status bar", m)
	send(t, m, size(80, 24))
	requireNoRawControl(t, "80x24", m)
}
