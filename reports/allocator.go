package reports

import (
	"fmt"

	"github.com/apache/arrow/go/v17/arrow/memory"
)

// readAllocator bounds every allocation the Arrow reader makes for one file.
//
// The Arrow Go reader sizes buffers from lengths stored in the file. A corrupt
// length (one flipped byte is enough) asks for a terabyte, and the Go runtime
// treats that as a fatal out-of-memory error that recover cannot catch. No
// buffer of an uncompressed file can be larger than the file, and a compressed
// one rarely expands by more than its codec's ratio; refusing larger requests
// turns the crash into a panic that the reader reports as a corrupt file.
type readAllocator struct {
	memory.GoAllocator
	limit int
}

// readExpansion is how much larger than the whole file one buffer may be. It
// leaves room for foreign files with compressed buffers (this package writes
// uncompressed ones) while keeping a corrupt length's damage to a few file sizes.
const readExpansion = 4

func newReadAllocator(fileSize int64) *readAllocator {
	limit := readExpansion*fileSize + 1<<20
	return &readAllocator{limit: int(min(limit, int64(^uint(0)>>1)))}
}

// allocationRefused is the panic value of a refused request.
type allocationRefused struct{ size, limit int }

func (e allocationRefused) String() string {
	return fmt.Sprintf("a buffer of %d bytes is larger than the file allows (limit %d)", e.size, e.limit)
}

func (a *readAllocator) Allocate(size int) []byte {
	if size < 0 || size > a.limit {
		panic(allocationRefused{size, a.limit})
	}
	return a.GoAllocator.Allocate(size)
}

func (a *readAllocator) Reallocate(size int, b []byte) []byte {
	if size < 0 || size > a.limit {
		panic(allocationRefused{size, a.limit})
	}
	return a.GoAllocator.Reallocate(size, b)
}
