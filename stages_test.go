package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeStages is edit/apply's path in the order a write lives it
// (edit/apply/doc.go): a stage may call itself, a later stage or the
// files below the stages, never an earlier stage. An operation's steps
// (steps.go, each an edit's whole path or a REST call of lifecycle.go)
// come first, then the path (apply.go); the files below the stages call no stage at all.
var writeStages = []string{
	"steps.go", "lifecycle.go", "apply.go", "check.go", "others.go", "writeahead.go", "write.go",
	"settle.go", "verify.go", "watch.go", "record.go",
}

// belowStages are edit/apply's data and ports: any stage may use them.
var belowStages = []string{"applier.go", "batches.go", "log.go", "result.go"}

// stageCall is one call from a function in one file of a package to a
// function or method declared in another.
type stageCall struct{ from, to, fn string }

// crossFileCalls parses a package's non-test files and lists the calls
// between files by name: a call of f or x.f where the package declares a
// function or method f in exactly one file. A name declared in several
// files is reported, so that a new one cannot hide a call behind it.
func crossFileCalls(t *testing.T, dir string) (calls []stageCall, files []string) {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	parsed := map[string]*ast.File{}
	// name -> the files declaring it: functions and methods apart, so
	// that a call of append is never a method append.
	funcs, methods := map[string][]string{}, map[string][]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		parsed[name] = f
		files = append(files, name)
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			in := funcs
			if fd.Recv != nil {
				in = methods
			}
			if got := in[fd.Name.Name]; len(got) == 0 || got[len(got)-1] != name {
				in[fd.Name.Name] = append(got, name)
			}
		}
	}
	for _, declared := range []map[string][]string{funcs, methods} {
		for fn, in := range declared {
			if len(in) > 1 {
				t.Errorf("%s: %s is declared in %v: give each a name of its own so the stages' calls stay readable", dir, fn, in)
			}
		}
	}
	for from, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var fn string
			var in []string
			switch e := call.Fun.(type) {
			case *ast.Ident:
				fn, in = e.Name, funcs[e.Name]
			case *ast.SelectorExpr:
				fn, in = e.Sel.Name, methods[e.Sel.Name]
			}
			if len(in) == 1 && in[0] != from {
				calls = append(calls, stageCall{from, in[0], fn})
			}
			return true
		})
	}
	sort.Strings(files)
	return calls, files
}

func TestWriteStagesCallOnlyForward(t *testing.T) {
	calls, files := crossFileCalls(t, "edit/apply")
	order := map[string]int{}
	for i, f := range writeStages {
		order[f] = i
	}
	below := map[string]bool{}
	for _, f := range belowStages {
		below[f] = true
	}
	for _, f := range files {
		if _, stage := order[f]; !stage && !below[f] && f != "doc.go" {
			t.Errorf("edit/apply/%s is neither a stage nor below them: add it to writeStages or belowStages and to edit/apply/doc.go", f)
		}
	}
	forward := 0
	for _, c := range calls {
		switch {
		case below[c.from] && !below[c.to]:
			t.Errorf("%s (below the stages) calls %s in the stage %s", c.from, c.fn, c.to)
		case below[c.to]:
		case order[c.to] < order[c.from]:
			t.Errorf("the stage %s calls %s back in the earlier stage %s", c.from, c.fn, c.to)
		default:
			forward++
		}
	}
	if forward == 0 {
		t.Fatal("no call between stages found: the test no longer reads edit/apply")
	}
}

// TestWriteStagesCatchACallBack keeps the rule able to fail: a call from
// a later stage to an earlier one is seen as one.
func TestWriteStagesCatchACallBack(t *testing.T) {
	calls, _ := crossFileCalls(t, "edit/apply")
	order := map[string]int{}
	for i, f := range writeStages {
		order[f] = i
	}
	seen := false
	for _, c := range calls {
		if c.from == "apply.go" && order[c.to] > 0 {
			seen = true
		}
	}
	if !seen {
		t.Fatal("the path (apply.go) calls no stage: the call graph read is empty")
	}
}
