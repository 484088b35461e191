package model

import "time"

// ConnectorState is what Connect's REST API says of one connector.
type ConnectorState struct {
	Name string
	// Type is source, sink or unknown.
	Type string
	// State is RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED or RESTARTING.
	State    string
	WorkerID string
	Tasks    []TaskState
	Config   map[string]string
}

// TaskState is one task of a connector.
type TaskState struct {
	ID       int
	State    string
	WorkerID string
	Trace    string
}

// TaskSummary is "2/2 running", or the failed and other states in brief.
func (c ConnectorState) TaskSummary() string {
	if len(c.Tasks) == 0 {
		return "no tasks"
	}
	running := 0
	for _, t := range c.Tasks {
		if t.State == "RUNNING" {
			running++
		}
	}
	if running == len(c.Tasks) {
		return Itoa(running) + "/" + Itoa(len(c.Tasks)) + " running"
	}
	counts := map[string]int{}
	var order []string
	for _, t := range c.Tasks {
		if counts[t.State] == 0 {
			order = append(order, t.State)
		}
		counts[t.State]++
	}
	s := ""
	for i, st := range order {
		if i > 0 {
			s += ", "
		}
		s += Itoa(counts[st]) + " " + lower(st)
	}
	return s
}

// RESTStatus is the latest poll of Connect's REST API.
type RESTStatus struct {
	URL     string
	Version string
	// Err is the last poll's error in one line ("" when it worked).
	Err string
	At  time.Time
	// StateAt is when the connectors' states were polled: At after a
	// poll that worked, the last such poll's time after one that failed.
	StateAt    time.Time
	Connectors map[string]ConnectorState
}

func Itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
