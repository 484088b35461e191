package probe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"koff/model/resume"
)

// countLimit is the largest file whose lines a check counts: the lines a
// gap skips are told only when reading them is quick.
const countLimit = 64 << 20

// fileStream checks a FileStreamSourceConnector: each stored position
// against its file's size on this host. Of the stored partitions, only
// the one of the file the connector's config names is read by its task.
func (c *Checker) fileStream(ctx context.Context, s Source, at time.Time) resume.Connector {
	want := strings.TrimSpace(s.Config["file"])
	var parts []resume.FilePartition
	var others []string
	for _, o := range s.Offsets {
		fo, err := resume.ParseFileOffset(o.Partition, o.Offset)
		if err == nil && want != "" && fo.Filename != want {
			others = append(others, fo.Filename)
			continue
		}
		fp := resume.FilePartition{Offset: fo}
		if err != nil {
			fp.Err = err.Error()
		} else if fo.Position >= 0 {
			fp.File = c.look(ctx, fo.Filename, fo.Position)
		}
		parts = append(parts, fp)
	}
	r := resume.FileStream(s.Name, s.Class, parts, at)
	if len(parts) == 0 && len(others) > 0 {
		r.Note = "its positions are of other files (" + strings.Join(others, ", ") + "): its task reads " + want + " from the first byte"
	}
	return r
}

// look stats path on this host and, when the position is past its end,
// counts its lines (the ones the task will skip) within the check's time.
func (c *Checker) look(ctx context.Context, path string, position int64) resume.File {
	f := resume.File{Path: path, Host: c.host(), Lines: -1}
	if !filepath.IsAbs(path) {
		f.Err = "a relative path, of the worker's working directory, which koff does not know"
		return f
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f
	case err != nil:
		f.Err = errors.Unwrap(err).Error()
		if f.Err == "" {
			f.Err = err.Error()
		}
		return f
	case !st.Mode().IsRegular():
		f.Err = "not a regular file"
		return f
	}
	f.Exists, f.Size = true, st.Size()
	if f.Size < position && f.Size <= countLimit {
		pctx, cancel := context.WithTimeout(ctx, c.timeout())
		defer cancel()
		f.Lines = countLines(pctx, path)
	}
	return f
}

// countLines counts the newlines of path; -1 when it cannot be read in
// time.
func countLines(ctx context.Context, path string) int64 {
	fh, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer fh.Close()
	var n int64
	buf := make([]byte, 64<<10)
	for {
		if ctx.Err() != nil {
			return -1
		}
		k, err := fh.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n
		}
		if err != nil {
			return -1
		}
	}
}
