package datasets

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A 600 MB line (a sparse file: no disk used) is refused after reading at
// most one line bound of it, for JSONL and CSV: the file used to be read
// whole first (2.9 GB, 26 s for JSONL).
func TestHugeLineIsRefusedWhileReading(t *testing.T) {
	for name, head := range map[string]string{"huge.jsonl": "{\"question\": \"", "huge.csv": "question\n\""} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			f, err := os.Create(path)
			require.NoError(t, err)
			_, err = f.WriteString(head)
			require.NoError(t, err)
			require.NoError(t, f.Truncate(600<<20))
			require.NoError(t, f.Close())
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err = LoadDocs(path)
			require.ErrorIs(t, err, ErrTooLarge)
			assert.ErrorContains(t, err, "a line of more than 16777216 bytes")
			assert.ErrorContains(t, err, path)
			assert.Less(t, time.Since(start), 5*time.Second)
			runtime.ReadMemStats(&after)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "bytes allocated (encoding/csv grows its record buffer by doubling)")
		})
	}
}
