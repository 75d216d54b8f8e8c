package cpu

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// availableMemory is what this process can still allocate: MemAvailable from
// /proc/meminfo, lowered to the cgroup (v2) limit's headroom inside a container.
func availableMemory() (int64, bool) {
	avail, ok := memInfoAvailable()
	if !ok {
		return 0, false
	}
	if limit, err := readInt("/sys/fs/cgroup/memory.max"); err == nil {
		if used, err := readInt("/sys/fs/cgroup/memory.current"); err == nil && limit-used < avail {
			avail = max(limit-used, 0)
		}
	}
	return avail, true
}

func memInfoAvailable() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("MemAvailable:"))
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"), 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}

// readInt reads a cgroup file holding one integer ("max" is not one).
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
