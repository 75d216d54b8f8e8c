package cpu

import (
	"bytes"
	"os"
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// hugePagesAvailable tells whether the kernel backs madvise(MADV_HUGEPAGE)
// memory with huge pages: transparent huge pages "always" or "madvise", not
// "never".
func hugePagesAvailable() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && (bytes.Contains(b, []byte("[always]")) || bytes.Contains(b, []byte("[madvise]")))
}

// mapHuge maps at least size bytes of anonymous memory and returns them from a
// huge-page boundary on (aligned), with huge pages asked for, and the whole
// mapping for unmapHuge. The unaligned head and tail are address space only:
// nothing touches them, so no memory backs them.
func mapHuge(size int) (aligned, mapping []byte, err error) {
	n := (size + hugePage - 1) &^ (hugePage - 1)
	mapping, err = syscall.Mmap(-1, 0, n+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, err
	}
	skip := (hugePage - int(uintptr(unsafe.Pointer(&mapping[0])))%hugePage) % hugePage
	aligned = mapping[skip : skip+n : skip+n]
	if err := syscall.Madvise(aligned, syscall.MADV_HUGEPAGE); err != nil {
		_ = syscall.Munmap(mapping)
		return nil, nil, err
	}
	return aligned, mapping, nil
}

// unmapHuge unmaps what mapHuge mapped.
func unmapHuge(mapping []byte) { _ = syscall.Munmap(mapping) }
