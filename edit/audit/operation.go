package audit

import (
	"fmt"
	"strings"

	"koff/edit/plan"
	"koff/model"
)

// ResultStep is the line of an operation's step that completed.
const ResultStep = "step"

// Step is one step of an operation as its write-ahead line holds it: what
// it does, to which connector, the config it creates or deletes, and an
// offsets step's every offset before → after with its records.
type Step struct {
	Kind      plan.StepKind     `json:"kind"`
	Connector string            `json:"connector"`
	Where     string            `json:"where,omitempty"`
	Text      string            `json:"text"`
	Config    map[string]string `json:"config,omitempty"`
	Previous  map[string]string `json:"previous,omitempty"`
	State     string            `json:"state,omitempty"`
	Path      plan.Path         `json:"path,omitempty"`
	Changes   []Change          `json:"changes,omitempty"`
	Undoes    string            `json:"undoes,omitempty"`
}

// StepsOf is what the write-ahead line holds of an operation's steps.
func StepsOf(op *plan.Operation) []Step {
	out := make([]Step, 0, len(op.Steps))
	for _, s := range op.Steps {
		st := Step{Kind: s.Kind, Connector: s.Connector, Where: s.Where, Text: s.Text(), Config: s.Config, Previous: s.Previous, State: s.State, Undoes: s.Undoes}
		if s.Plan != nil {
			st.Path, st.Changes = s.Plan.Path, ChangesOf(s.Plan)
		}
		out = append(out, st)
	}
	return out
}

// DoneSteps are the indexes of the steps an operation carried out, in the
// order they completed, and the ids of its offsets steps' edits by index.
func (ed Edit) DoneSteps() (done []int, edits map[int]string) {
	edits = map[int]string{}
	for _, en := range ed.Done {
		if en.Step == nil || *en.Step < 0 || *en.Step >= len(ed.Start.Steps) {
			continue
		}
		done = append(done, *en.Step)
		if en.StepEdit != "" {
			edits[*en.Step] = en.StepEdit
		}
	}
	return done, edits
}

// StepsText says which steps happened and which did not: "done: 1 stop
// a, 2 create b; not done: 3 …".
func (ed Edit) StepsText() string {
	done, _ := ed.DoneSteps()
	isDone := map[int]bool{}
	for _, i := range done {
		isDone[i] = true
	}
	var did, not []string
	for i, s := range ed.Start.Steps {
		t := fmt.Sprintf("%d %s %s", i+1, s.Kind, s.Connector)
		if s.Where != "" {
			t += " on " + s.Where
		}
		if isDone[i] {
			did = append(did, t)
		} else {
			not = append(not, t)
		}
	}
	out := "done: " + orNone(did)
	if len(not) > 0 {
		out += "; not done: " + strings.Join(not, ", ")
	}
	return out
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

func (ed Edit) operationNotice() string {
	s := ed.Start
	how := "stopped part way"
	switch ed.Result() {
	case ResultInProgress:
		how = "its process ended without an outcome"
	case ResultPartial:
		how = "a step failed"
		if ed.Outcome != nil && ed.Outcome.Error != "" {
			how += ": " + ed.Outcome.Error
		}
	}
	if ed.onBoth() {
		how += "; " + s.Connector + " is on both Connect clusters, STOPPED on both (here and on " + s.To + ")"
	}
	return fmt.Sprintf("INTERRUPTED %s: the %s by %s at %s (%s; steps %s): run `%s` to bring back the start, or finish it by hand",
		strings.ToUpper(string(s.Kind)), s.What(), s.User, model.TimeText(s.Time), how, ed.StepsText(), plan.UndoCommand(s.Connector, ed.ID()))
}

// onBoth: a move whose done steps created the connector on the target and
// did not delete it here (plan.Operation.OnBoth, from the audit lines).
func (ed Edit) onBoth() bool {
	if ed.Start.Kind != plan.KindMove {
		return false
	}
	done, _ := ed.DoneSteps()
	op := plan.Operation{Kind: plan.KindMove}
	for _, s := range ed.Start.Steps {
		op.Steps = append(op.Steps, plan.Step{Kind: s.Kind, Connector: s.Connector, Where: s.Where})
	}
	return op.OnBoth(done)
}

func (ed Edit) operationHeadline() string {
	s := ed.Start
	done, _ := ed.DoneSteps()
	return fmt.Sprintf("INTERRUPTED %s of %s: %s brings back the start (%d/%d steps done, by %s at %s)",
		strings.ToUpper(string(s.Kind)), s.Connector, plan.UndoCommand(s.Connector, ed.ShortID()), len(done), len(s.Steps), s.User, model.TimeText(s.Time))
}

// Concerns says whether the entry is an edit of connector: its own, or,
// for an operation, one of its steps' (a rename's old name, whose
// offsets it tombstoned and whose config it deleted).
func (en Entry) Concerns(connector string) bool {
	if en.Connector == connector {
		return true
	}
	for _, s := range en.Steps {
		if s.Connector == connector {
			return true
		}
	}
	return false
}
