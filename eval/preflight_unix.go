//go:build unix

package eval

import "syscall"

// freeBytes is the space an unprivileged writer may still use on dir's file system.
func freeBytes(dir string) (int64, bool, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false, err
	}
	return int64(st.Bavail) * int64(st.Bsize), true, nil
}
