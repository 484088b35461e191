package cli

import (
	"bufio"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"koff/model/store"
	"koff/model/text"
)

// protoOneShot, when set, is handed to the next one-shot Tailer
// (startTailerFrom): a prototype read without the Store's index or
// entries (store.OneShotRead), for koff get -o json of every connector,
// with KOFF_ONESHOT_PROTO set.
var protoOneShot *store.OneShotRead

// protoTook says whether the last getProto printed (a test's view).
var protoTook bool

// getProto prints koff get -o json through store.OneShotRead, and says
// whether it did: false when the read was not its simple case (the caller
// then reads into a Store as always).
func getProto(g *Globals, env Env, o *getOptions) (bool, error) {
	start := time.Now()
	if path := env.Getenv("KOFF_ONESHOT_CPUPROF"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return true, err
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	protoTook = false
	read := &store.OneShotRead{}
	protoOneShot = read
	st, err := loadStoreWith(g, env, o.timeout, true, true)
	protoOneShot = nil
	if err != nil {
		return true, err
	}
	verbose := env.Getenv("KOFF_ONESHOT_PROTO") == "v"
	if len(st.ConnectorList()) > 0 {
		if verbose {
			fmt.Fprintln(env.Stderr, "oneshot: connectors known otherwise")
		}
		return false, nil // connectors known otherwise (configs, groups): the Store decides
	}
	t0 := time.Now()
	bodies, ok := read.Bodies()
	if verbose {
		fmt.Fprintf(env.Stderr, "oneshot: read %s, bodies %s, simple %v %s\n", t0.Sub(start), time.Since(t0), ok, read.Why())
	}
	if !ok {
		return false, nil
	}
	w, guard := env.Stdout, false
	if s, ok := w.(*safeWriter); ok {
		s.Flush()
		w, guard = s.w, true
	}
	protoTook = true
	out := bufio.NewWriterSize(w, 64<<10)
	bodies.WriteJSON(func(p []byte, printable bool) {
		if !printable && !text.PrintableASCII(p) {
			if p = text.JSONSafe(p); guard {
				p = text.SanitizeOutput(p)
			}
		}
		out.Write(p)
	})
	out.WriteByte('\n')
	return true, out.Flush()
}
