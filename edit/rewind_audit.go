package edit

import (
	"koff/edit/plan"
	"koff/model"
)

// What names an edit for one line: "set of NAME", "rewind of NAME to T".
func (en AuditEntry) What() string { return plan.What(en.Kind, en.Connector, en.Rewind) }

// String names the koff edit that wrote a commit, as koff history marks
// it: "koff rewind ID by USER at TIME".
func (k KoffEdit) String() string {
	return "koff " + string(k.Kind) + " " + k.ID + " by " + orUnknownUser(k.User) + " at " + model.TimeText(k.Time)
}

// KindText is an edit's kind, with a rewind's time: "rewind to T".
func (en AuditEntry) KindText() string {
	if en.Kind == plan.KindRewind && en.Rewind != nil {
		return "rewind to " + en.Rewind.AtText()
	}
	return string(en.Kind)
}
