package cli

import (
	"fmt"
	"os"
	"time"

	"github.com/charmbracelet/x/term"

	"koff/edit"
	"koff/model/text"
)

// watchProgress is the one line on stderr while an edit is watched after
// its read-back for a task's commit over it: on a terminal it counts down
// in place; elsewhere (a log, a pipe) it is said once.
func (s *editSession) watchProgress() func(*edit.Plan, time.Duration) {
	f, ok := s.env.Stderr.(*os.File)
	live := ok && term.IsTerminal(f.Fd())
	return func(p *edit.Plan, left time.Duration) {
		secs := int((left + time.Second - 1) / time.Second)
		if !live {
			if s.progressShown {
				return
			}
			s.progressShown = true
			fmt.Fprintf(s.env.Stderr, "koff: %s read back; watching it for %s for a running task's commit over it (Ctrl+C stops watching: the edit stays written, not verified)\n", text.Sanitize(p.Connector), p.Watch.Round(100*time.Millisecond))
			return
		}
		if secs == s.progressSecs {
			return
		}
		s.progressShown, s.progressSecs = true, secs
		fmt.Fprintf(s.env.Stderr, "\r\x1b[Kkoff: %s read back; watching for a running task's commit over it: %ds left (Ctrl+C stops watching)", text.Sanitize(p.Connector), secs)
	}
}

// endProgress ends the progress line on a terminal.
func (s *editSession) endProgress() {
	if s.progressShown && s.progressSecs > 0 {
		fmt.Fprintln(s.env.Stderr)
	}
	s.progressShown, s.progressSecs = false, 0
}
