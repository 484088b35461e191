package resume

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// FileOffset is one stored FileStreamSourceConnector partition:
// {"filename":PATH} → {"position":BYTES READ}.
type FileOffset struct {
	Partition string
	Filename  string
	// Position is the byte the task resumes at; -1 when none is stored.
	Position int64
}

// ParseFileOffset reads a stored FileStreamSource partition and offset.
func ParseFileOffset(partition, offset string) (FileOffset, error) {
	f := FileOffset{Partition: partition, Position: -1}
	var p map[string]any
	if err := decodeExact(partition, &p); err != nil || p == nil {
		return f, fmt.Errorf("partition %s is not a FileStreamSource partition map", partition)
	}
	if f.Filename, _ = p["filename"].(string); f.Filename == "" {
		return f, fmt.Errorf("partition %s names no filename", partition)
	}
	var o map[string]any
	if err := decodeExact(offset, &o); err != nil {
		return f, fmt.Errorf("offset %s is not JSON", offset)
	}
	v, ok := o["position"]
	if !ok || v == nil {
		return f, nil
	}
	n, ok := v.(json.Number)
	pos, err := strconv.ParseInt(string(n), 10, 64)
	if !ok || err != nil || pos < 0 {
		// FileStreamSourceTask.poll: "Offset position is the incorrect type".
		return f, fmt.Errorf("position %s is not a whole number of bytes: the task fails (Offset position is the incorrect type)", offset)
	}
	f.Position = pos
	return f, nil
}

// File is what koff found of a file on the host it runs on.
type File struct {
	Path string
	// Host is the machine koff looked on.
	Host   string
	Exists bool
	Size   int64
	// Lines counts the newlines in the file; -1 when not counted (too
	// big to read within the check's time).
	Lines int64
	// Err is why koff could not look at the file (permission, a path
	// that is not a regular file).
	Err string
}

// FilePartition is one stored FileStreamSource partition with its file.
type FilePartition struct {
	Offset FileOffset
	File   File
	Err    string
}

// FileStream judges a FileStreamSourceConnector by each stored position
// against the size of its file where koff runs: the worker's host, or koff
// cannot tell. FileStreamSourceTask.poll opens the file and skips
// position bytes (InputStream.skip, in a loop until all are skipped); on a
// file shorter than that, the JDK's skip stops at its end and then skips
// nothing (ChannelInputStream.skip returns 0 at the end), so the task
// spins without reading until the file has grown past the position, then
// reads on from there: the file's first position bytes are never read. A
// missing file makes it wait for the file (NoSuchFileException, 1 s) and
// then do the same.
func FileStream(name, class string, parts []FilePartition, at time.Time) Connector {
	c := Connector{Name: name, Class: class, Type: "source", Checked: at}
	if len(parts) == 0 {
		c.Note = "no offsets stored: its task reads its file from the first byte"
		return c
	}
	for _, fp := range parts {
		o, f := fp.Offset, fp.File
		r := Partition{Partition: o.Partition, Position: "byte " + itoa(o.Position), Lost: None, Replayed: None}
		switch {
		case fp.Err != "":
			r.State, r.Reason = Unknown, fp.Err
			if o.Position < 0 {
				r.Position = "none"
			}
		case o.Position < 0:
			r.Position, r.State = "none", Resumes
			r.Action = "no position stored: the task reads " + o.Filename + " from the first byte"
		case f.Err != "":
			r.State = Unknown
			r.Reason = "cannot look at " + f.Path + " on " + f.Host + ": " + f.Err
		case !f.Exists:
			r.State = Unknown
			r.Reason = f.Path + " does not exist on " + f.Host + ": koff checks the file where it runs, so run koff check on the worker's host; there, the task waits for the file and then skips its first " + bytesText(o.Position)
		case f.Size >= o.Position:
			r.State = Resumes
			r.Action = "reads on from byte " + itoa(o.Position) + " (" + bytesText(f.Size-o.Position) + " to read)"
		default:
			r.State = Gap
			r.Lost.Bytes = f.Size
			r.Lost.Records = f.Lines
			r.ResumesAt = "byte " + itoa(o.Position) + ", once the file has grown by " + bytesText(o.Position-f.Size)
			lines := ""
			if f.Lines >= 0 {
				lines = ", " + linesText(f.Lines) + ","
			}
			r.Action = f.Path + " has " + bytesText(f.Size) + ", fewer than the position " + itoa(o.Position) +
				" (truncated or replaced): FileStreamSourceTask skips to byte " + itoa(o.Position) +
				" and reads nothing until the file has grown past it, then reads on from there (its first record the rest of the line that byte falls in); the " +
				bytesText(f.Size) + " it holds now" + lines + " and the next " + bytesText(o.Position-f.Size) + " written are never read"
		}
		c.Partitions = append(c.Partitions, r)
	}
	return c
}

func bytesText(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return itoa(n) + " bytes"
}

func linesText(n int64) string {
	if n == 1 {
		return "1 line"
	}
	return itoa(n) + " lines"
}
