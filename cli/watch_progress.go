package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/charmbracelet/x/term"

	"koff/edit/plan"
	"koff/model/text"
)

// watchProgress is the one line on stderr, on a terminal, while an edit is
// watched after its read-back for a task's commit over it: it counts down
// in place. Elsewhere (a script, a log) the plan's "verify:" line on
// stdout has said how long koff watches, and stderr stays for errors.
func (s *editSession) watchProgress() func(*plan.Plan, time.Duration) {
	f, ok := s.env.Stderr.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return nil
	}
	return func(p *plan.Plan, left time.Duration) {
		secs := int((left + time.Second - 1) / time.Second)
		if secs == s.progressSecs {
			return
		}
		s.progressSecs = secs
		fmt.Fprintf(s.env.Stderr, "\r\x1b[Kkoff: %s read back; watching %ds more for a running task's commit over it (Ctrl+C stops watching: the edit stays written, not verified)", text.Sanitize(p.Connector), secs)
	}
}

// endProgress ends the progress line.
func (s *editSession) endProgress() {
	if s.progressSecs > 0 {
		fmt.Fprint(s.env.Stderr, "\r\x1b[K")
	}
	s.progressSecs = 0
}
