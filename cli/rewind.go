package cli

import (
	"errors"
	"fmt"
	"io"
	"time"

	"koff/edit"
	"koff/model/java"
)

// rewindSource runs set --to-datetime for a source connector: each
// partition back to the value committed at or before t, from the offsets
// topic's retained history. It reports false, having done nothing, when
// the connector has no source offsets (a sink: its group is set from its
// data topics' record times instead).
func rewindSource(s *editSession, o *setOptions, name string, t time.Time) (bool, error) {
	req := edit.RewindRequest{Connector: name, At: t, IfNewer: edit.IfNewer(o.ifNewer)}
	if o.partition != "" {
		p, err := edit.ParsePartition(o.partition)
		if err != nil {
			return false, usagef("--partition: %v", err)
		}
		req.Partitions = []java.Object{p}
	}
	rw, err := s.ed.PlanRewind(s.ctx, req)
	if errors.Is(err, edit.ErrNotSourceRewind) {
		if o.ifNewer != "" {
			return true, usagef("--if-newer is for source connectors; %s has no source offsets", name)
		}
		return false, nil
	}
	if err != nil {
		return true, err
	}
	printRewind(s.env.Stdout, rw)
	if rw.Plan == nil {
		fmt.Fprintf(s.env.Stdout, "nothing to change: %s\n", nothingRewound(rw))
		return true, nil
	}
	rw.Plan.Command = rewindCommand(s.ed, rw)
	return true, s.runPlans([]*edit.Plan{rw.Plan}, o.writeFlags)
}

// printRewind says, for every partition, which commit the rewind takes
// (its time, timestamp type and place in the offsets topic) or why it
// leaves the partition alone.
func printRewind(w io.Writer, rw *edit.Rewind) {
	fmt.Fprintf(w, "Rewind %s to %s: each partition's newest commit at or before it\n", field(rw.Connector), rw.At.UTC().Format(time.RFC3339Nano))
	for _, c := range rw.Choices {
		fmt.Fprintf(w, "  %s  ", jsonField(c.Partition))
		switch c.Action {
		case edit.RewindSet:
			fmt.Fprintf(w, "%s, committed %s\n", jsonField(string(c.Value)), edit.CommitText(*c.Took))
		case edit.RewindReset:
			if c.Took != nil {
				fmt.Fprintf(w, "deleted: a tombstone was in force, committed %s\n", edit.CommitText(*c.Took))
			} else {
				fmt.Fprintf(w, "deleted (--if-newer reset): %s\n", noteField(c.Reason))
			}
		case edit.RewindOldest:
			fmt.Fprintf(w, "%s, its oldest retained commit %s (--if-newer oldest): %s\n", jsonField(string(c.Value)), edit.CommitText(*c.Took), noteField(c.Reason))
		case edit.RewindUnchanged:
			fmt.Fprintf(w, "unchanged: in force then and now, committed %s\n", edit.CommitText(*c.Took))
		default:
			fmt.Fprintf(w, "left alone: %s\n", noteField(c.Reason))
		}
	}
	if left := rw.Left(); len(left) > 0 {
		fmt.Fprintf(w, "  %d partition(s) left alone: --if-newer reset deletes their offsets, --if-newer oldest takes their oldest retained commit\n", len(left))
	}
}

func nothingRewound(rw *edit.Rewind) string {
	if len(rw.Left()) > 0 {
		return "every partition is as it was then, or left alone"
	}
	return "every partition is as it was then"
}

// rewindCommand is the command line of a rewind (a replan after a stop
// shows the import of the same values instead).
func rewindCommand(ed *edit.Editor, rw *edit.Rewind) string {
	args := []string{"set", rw.Connector, "--to-datetime", rw.At.Format(time.RFC3339Nano)}
	for _, p := range rw.Partitions {
		args = append(args, "--partition", string(java.AppendJackson(nil, p)))
	}
	if rw.IfNewer != "" {
		args = append(args, "--if-newer", string(rw.IfNewer))
	}
	return ed.Cmd.Args(args)
}
