package reports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// atomicFile is a file that appears at its path only when complete: it is written
// as a hidden temporary in the same directory (rename is atomic only within one
// file system), fsynced, renamed over the path, and the directory fsynced so the
// rename itself survives a crash. A killed run leaves at most a stray temporary,
// never a truncated .arrow file under the real name.
type atomicFile struct {
	path string
	f    *os.File
	bw   *bufio.Writer
	pos  int64
}

func createAtomic(path string) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	// CreateTemp makes the file private (0600); run directories are shared
	// with other users and tools, so publish it readable like os.Create would.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &atomicFile{path: path, f: f, bw: bufio.NewWriterSize(f, 1<<20)}, nil
}

// Write buffers: the Arrow IPC writer issues many small writes per batch.
func (a *atomicFile) Write(p []byte) (int, error) {
	n, err := a.bw.Write(p)
	a.pos += int64(n)
	return n, err
}

// Seek reports the position; the Arrow file writer only ever asks where it is.
func (a *atomicFile) Seek(offset int64, whence int) (int64, error) {
	if offset == 0 && whence == io.SeekCurrent {
		return a.pos, nil
	}
	return 0, errors.New("atomicFile: only Seek(0, io.SeekCurrent) is supported")
}

// commit publishes the file under its final name.
func (a *atomicFile) commit() error {
	tmp := a.f.Name()
	err := a.bw.Flush()
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, a.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	if err := syncDir(filepath.Dir(a.path)); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", a.path, err)
	}
	return nil
}

// WriteFileAtomic writes path through fill so that readers see either the old file
// or the whole new one, never a partial write: the one atomic writer of every file
// in a run directory (Arrow files, JSON, JSONL, HTML, figures).
func WriteFileAtomic(path string, fill func(io.Writer) error) error {
	a, err := createAtomic(path)
	if err != nil {
		return err
	}
	if err := fill(a); err != nil {
		a.abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return a.commit()
}

// abort discards the temporary; the path keeps whatever it held before.
func (a *atomicFile) abort() {
	a.f.Close()
	os.Remove(a.f.Name())
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
