package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

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
		// Not a usage error: the run may be about to start there.
		if ours, _, err := dirState(dir); err != nil || !ours {
			return nil, fmt.Errorf("%s holds no run (no %s): %w", dir, ManifestFile, os.ErrNotExist)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, LockFile)
	f, err := lockFile(path)
	if err != nil {
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

// lockFile opens and flocks path, and checks that the file locked is still
// the one at path: a writer that removed or replaced .lock between our open
// and our flock holds the lock of the new file, and ours would lock nothing.
// It tries again on the new file a few times.
func lockFile(path string) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := flock(f); err != nil {
			f.Close()
			return nil, err
		}
		err = sameFile(f, path)
		if err == nil {
			return f, nil
		}
		f.Close()
		if try == 3 {
			return nil, err
		}
	}
}

// ErrLockLost marks a lock whose file was removed or replaced while held:
// another process may now hold the lock of the new file.
var ErrLockLost = errors.New("the run directory's lock file was removed or replaced while held")

// sameFile checks that f is the file at path.
func sameFile(f *os.File, path string) error {
	held, err := f.Stat()
	if err != nil {
		return err
	}
	now, err := os.Stat(path)
	if err != nil || !os.SameFile(held, now) {
		return fmt.Errorf("%s: %w; another writer may have started: stop here and run again once it is done", path, ErrLockLost)
	}
	return nil
}

// Check reports ErrLockLost when the lock file was removed or replaced since
// the lock was taken (deleting .lock let a second writer in while the first
// kept writing); writers call it before each write to the directory.
func (l *DirLock) Check() error {
	if l == nil || l.f == nil {
		return nil
	}
	return sameFile(l.f, filepath.Join(l.dir, LockFile))
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
