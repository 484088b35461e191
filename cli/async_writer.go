package cli

import (
	"io"
	"sync/atomic"
)

// asyncWriter is a buffered writer whose buffers are written out by a
// goroutine of their own: a command that prints a million lines spends
// much of its time in the last guard (safeWriter) and in write(2), which
// can run on another core while the next lines are made. At most
// asyncBuffers buffers are in hand: memory does not grow with the output.
type asyncWriter struct {
	buf  []byte
	full chan []byte // buffers to write, in order
	free chan []byte // buffers written
	done chan error  // the first error, when full is closed
	err  error
	// failed is the first error as soon as it happens: the command stops
	// making lines nobody reads (koff history | head).
	failed atomic.Pointer[error]
}

const (
	asyncBufferSize = 64 << 10
	asyncBuffers    = 4
)

func newAsyncWriter(w io.Writer) *asyncWriter {
	a := &asyncWriter{full: make(chan []byte, asyncBuffers), free: make(chan []byte, asyncBuffers), done: make(chan error, 1)}
	for range asyncBuffers - 1 {
		a.free <- make([]byte, 0, asyncBufferSize)
	}
	a.buf = make([]byte, 0, asyncBufferSize)
	go func() {
		var err error
		for b := range a.full {
			if err == nil {
				if _, err = w.Write(b); err != nil {
					a.failed.Store(&err)
				}
			}
			a.free <- b[:0]
		}
		a.done <- err
	}()
	return a
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	if err := a.failed.Load(); err != nil {
		return 0, *err
	}
	n := len(p)
	for len(p) > 0 {
		if len(a.buf) == cap(a.buf) {
			a.full <- a.buf
			a.buf = <-a.free
		}
		c := copy(a.buf[len(a.buf):cap(a.buf)], p)
		a.buf = a.buf[:len(a.buf)+c]
		p = p[c:]
	}
	return n, nil
}

// Close writes what is left and waits for every write; it returns the
// first error. The writer is of no more use after.
func (a *asyncWriter) Close() error {
	if len(a.buf) > 0 {
		a.full <- a.buf
	}
	close(a.full)
	a.err = <-a.done
	if a.err == nil {
		a.err = io.ErrClosedPipe
		return nil
	}
	return a.err
}
