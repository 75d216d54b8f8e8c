package datasets

import (
	"io/fs"
	"os"
	"path"
)

// taskFS is the file system task files are read from: fsys for relative
// paths, and the machine's own for absolute ones, so `include: /abs/x.yaml`
// reads what lm-eval reads (an fs.FS refuses an absolute path as invalid:
// "stat /etc/passwd: invalid argument") and a task file given on the command
// line keeps its own absolute path in every message (errors showed
// "tmp/x/task.yaml", the root's "/" dropped). fsys nil has no relative paths.
type taskFS struct{ fsys fs.FS }

func (t taskFS) Open(name string) (fs.File, error) {
	if path.IsAbs(name) {
		return os.Open(name)
	}
	if t.fsys == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return t.fsys.Open(name)
}
