package cli

import (
	"io"
	"sync"

	"koff/model/text"
)

// pipeWriter writes a long output (koff history's million lines) on a
// goroutine of its own, a buffer at a time, beside the work that makes
// the next lines. Lines made safe piece by piece as they were made go
// through writeSafe and are not scanned again; anything else goes
// through Write and the guard every command's output passes
// (text.SanitizeOutput). A failed write (a closed pipe, a full disk) is
// returned by the next call, and nothing is written after it.
type pipeWriter struct {
	buf  []byte
	full chan []byte
	free chan []byte
	done chan struct{}
	mu   sync.Mutex
	err  error
}

const pipeBuffer = 256 << 10

// newPipeWriter writes to w; w's guard, if it is one, is passed by: each
// write says whether its bytes are safe.
func newPipeWriter(w io.Writer) *pipeWriter {
	if s, ok := w.(*safeWriter); ok {
		s.Flush()
		w = s.w
	}
	p := &pipeWriter{buf: make([]byte, 0, pipeBuffer), full: make(chan []byte, 1), free: make(chan []byte, 2), done: make(chan struct{})}
	// Two buffers, and room in free for both: the writer never waits to
	// give one back.
	p.free <- make([]byte, 0, pipeBuffer)
	go func() {
		defer close(p.done)
		for b := range p.full {
			if p.failed() == nil {
				if _, err := w.Write(b); err != nil {
					p.mu.Lock()
					p.err = err
					p.mu.Unlock()
				}
			}
			p.free <- b[:0]
		}
	}()
	return p
}

func (p *pipeWriter) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Write writes b through the guard. Each call is whole lines (or whole
// fields): a UTF-8 sequence is never split between two.
func (p *pipeWriter) Write(b []byte) (int, error) {
	if err := p.writeSafe(text.SanitizeOutput(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// writeSafe writes b as it is: every outside field in it has been
// through text.SanitizeOutput (or Sanitize) on its own, and the rest is
// koff's ASCII, which ends any run the guard looks at whole.
func (p *pipeWriter) writeSafe(b []byte) error {
	if err := p.failed(); err != nil {
		return err
	}
	p.buf = append(p.buf, b...)
	if len(p.buf) >= pipeBuffer {
		p.full <- p.buf
		p.buf = <-p.free
	}
	return nil
}

// Close writes what is left and waits for every write: its error is the
// first failed write's.
func (p *pipeWriter) Close() error {
	if len(p.buf) > 0 {
		p.full <- p.buf
		p.buf = nil
	}
	close(p.full)
	<-p.done
	return p.failed()
}
