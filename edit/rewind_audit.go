package edit

import (
	"koff/edit/audit"
	"koff/model"
)

// String names the koff edit that wrote a commit, as koff history marks
// it: "koff rewind ID by USER at TIME".
func (k KoffEdit) String() string {
	return "koff " + string(k.Kind) + " " + k.ID + " by " + audit.OrUnknownUser(k.User) + " at " + model.TimeText(k.Time)
}
