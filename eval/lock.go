package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the advisory lock of a run directory: whoever holds it (a run, a
// merge or a report writing into the directory) is the directory's only writer.
const LockFile = ".lock"

// ErrLocked marks a directory another live process holds.
var ErrLocked = errors.New("directory is locked by another process")

// DirLock is a held run-directory lock. The kernel drops it when the process
// exits, however it exits (kill -9 included), so a stale lock never needs clearing.
type DirLock struct {
	f   *os.File
	dir string
	// Removed are the stale temporary files cleared when the lock was taken.
	Removed []string
}

// LockDir creates dir if needed and takes its lock without waiting; dir must be
// new, empty or a run directory (ErrNotRunDir otherwise), and is marked as one.
// Held by another process, it fails with ErrLocked and that process's pid. Once
// held, the temporary files a killed writer left behind (".name.tmp-N", of the
// files we write) are removed: no one else can be writing them.
func LockDir(dir string) (*DirLock, error) { return lockDir(dir, true) }

// LockRunDir is LockDir for a run directory that must exist already (report,
// rescore): a missing one is an error and is not created.
func LockRunDir(dir string) (*DirLock, error) { return lockDir(dir, false) }

func lockDir(dir string, create bool) (*DirLock, error) {
	if err := checkRunDir(dir); err != nil {
		return nil, err
	}
	if !create {
		if ours, _, err := dirState(dir); err != nil || !ours {
			return nil, fmt.Errorf("%s is not a run directory (no %s): %w", dir, ManifestFile, ErrNotRunDir)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%s is in use by %s (lock %s); wait for it to finish or use another directory: %w",
				dir, holder(path), path, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	// The pid is for the refusal message of the next comer only; the lock itself
	// is the flock, not the file's content.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	l := &DirLock{f: f, dir: dir}
	// Checked again under the lock: files may have appeared since.
	if err := checkRunDir(dir); err != nil {
		l.Unlock()
		return nil, err
	}
	if err := markRunDir(dir); err != nil {
		l.Unlock()
		return nil, err
	}
	if l.Removed, err = removeStaleTemps(dir); err != nil {
		l.Unlock()
		return nil, err
	}
	return l, nil
}

// Unlock releases the lock; the lock file stays (removing it would race with a
// process that just opened it).
func (l *DirLock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Close() // closing the descriptor drops the flock
	l.f = nil
}

func holder(lockPath string) string {
	b, err := os.ReadFile(lockPath)
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil {
		return "another process"
	}
	return "process " + strconv.Itoa(pid)
}
