package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingFile writes half of the chosen appends and then fails with ENOSPC, like
// a disk that fills mid-line; failTruncate makes cutting the line back fail too.
type failingFile struct {
	*os.File
	mu           sync.Mutex
	writes       int
	failOn       map[int]bool
	failTruncate bool
}

func (f *failingFile) Write(b []byte) (int, error) {
	f.mu.Lock()
	f.writes++
	fail := f.failOn[f.writes]
	f.mu.Unlock()
	if !fail {
		return f.File.Write(b)
	}
	n, _ := f.File.Write(b[:len(b)/2])
	return n, syscall.ENOSPC
}

func (f *failingFile) Truncate(size int64) error {
	if f.failTruncate {
		return syscall.EIO
	}
	return f.File.Truncate(size)
}

func rec(problem int) Record {
	return Record{ItemKey: ItemKey{Sampler: "g", ProblemIndex: problem}, Response: strings.Repeat("x", 100)}
}

// Two writers append while one append fails halfway: the torn half is cut before
// any other line follows it, so the journal replays whole with nothing to repair.
func TestFailedAppendIsCutBeforeOthersWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), JournalFile)
	j, _, err := OpenJournal(path)
	require.NoError(t, err)
	j.f = &failingFile{File: j.f.(*os.File), failOn: map[int]bool{7: true, 20: true}}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []error
	)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				if err := j.Append(rec(w*100 + i)); err != nil {
					mu.Lock()
					failed = append(failed, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, j.Close())
	require.Len(t, failed, 2)
	assert.ErrorIs(t, failed[0], syscall.ENOSPC)
	assert.ErrorContains(t, failed[0], "the partial line was cut off")

	j, recs, err := OpenJournal(path)
	require.NoError(t, err)
	defer j.Close()
	assert.Empty(t, j.Repaired, "nothing torn was left behind")
	assert.Len(t, recs, 28)
}

// When the torn line cannot be cut either, every later append is refused (the
// other writers stop), and the next open repairs the tail and says what it dropped.
func TestUncuttableFailedAppendStopsAllWritersAndResumeRepairs(t *testing.T) {
	path := filepath.Join(t.TempDir(), JournalFile)
	j, _, err := OpenJournal(path)
	require.NoError(t, err)
	require.NoError(t, j.Append(rec(1)))
	j.f = &failingFile{File: j.f.(*os.File), failOn: map[int]bool{1: true}, failTruncate: true}
	err = j.Append(rec(2))
	require.ErrorIs(t, err, syscall.ENOSPC)
	assert.ErrorIs(t, err, syscall.EIO)
	err = j.Append(rec(3))
	require.ErrorContains(t, err, "is stopped after a failed append")
	require.NoError(t, j.Close())

	j, recs, err := OpenJournal(path)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	require.Len(t, j.Repaired, 1)
	assert.Contains(t, j.Repaired[0], "line 2: a torn write of")
	require.NoError(t, j.Append(rec(2)))
	require.NoError(t, j.Close())
	recs, err = ReadJournal(path)
	require.NoError(t, err)
	assert.Len(t, recs, 2)
}

// Every torn shape a journal can hold is repaired on open, each drop described:
// a fragment glued to the next record (issue 13's "line 57 is corrupt"), a line
// with no record, NUL bytes a crash left at the end, a plain torn tail.
func TestOpenJournalRepairsEveryTornShape(t *testing.T) {
	whole := func(p int) string {
		b, err := json.Marshal(rec(p))
		require.NoError(t, err)
		return string(b) + "\n"
	}
	cases := []struct {
		name    string
		content string
		want    []int
		dropped []string
	}{
		{"glued fragment", whole(1) + `{"sampler":"g","seed":0,"rep` + whole(2) + whole(3), []int{1, 2, 3},
			[]string{"line 2: a torn write of 28 bytes before its record"}},
		{"no record", whole(1) + "garbage\n" + whole(2), []int{1, 2}, []string{"line 2: 8 bytes holding no whole record"}},
		{"NUL tail", whole(1) + "\x00\x00\x00\x00", []int{1}, []string{"line 2: a torn write of 4 bytes at the end"}},
		{"torn tail", whole(1) + whole(2)[:30], []int{1}, []string{"line 2: a torn write of 30 bytes at the end"}},
		{"empty", "", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), JournalFile)
			require.NoError(t, os.WriteFile(path, []byte(c.content), 0o644))
			read, err := ReadJournal(path)
			require.NoError(t, err)
			j, recs, err := OpenJournal(path)
			require.NoError(t, err)
			assert.Equal(t, read, recs, "reading and opening agree")
			var got []int
			for _, r := range recs {
				got = append(got, r.ProblemIndex)
			}
			assert.Equal(t, c.want, got)
			require.Len(t, j.Repaired, len(c.dropped))
			for i, d := range c.dropped {
				assert.Contains(t, j.Repaired[i], d)
			}
			require.NoError(t, j.Append(rec(9)))
			require.NoError(t, j.Close())
			j, recs, err = OpenJournal(path)
			require.NoError(t, err)
			assert.Empty(t, j.Repaired, "the repaired journal is whole")
			assert.Len(t, recs, len(c.want)+1)
			require.NoError(t, j.Close())
		})
	}
}

// FuzzJournalRepair: whatever bytes a journal holds, opening it never fails on
// content, reading and opening agree, and after one append the reopened journal
// is whole and holds one more record.
func FuzzJournalRepair(f *testing.F) {
	b, _ := json.Marshal(rec(1))
	line := string(b) + "\n"
	f.Add(line + line[:20])
	f.Add(line + `{"sampler":"g","se` + line)
	f.Add("\x00\x00\n" + line)
	f.Add("")
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(t.TempDir(), JournalFile)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		read, err := ReadJournal(path)
		require.NoError(t, err)
		j, recs, err := OpenJournal(path)
		require.NoError(t, err)
		require.Equal(t, read, recs)
		extra := rec(1 << 30)
		require.NoError(t, j.Append(extra))
		require.NoError(t, j.Close())
		j, again, err := OpenJournal(path)
		require.NoError(t, err)
		defer j.Close()
		assert.Empty(t, j.Repaired)
		want := len(recs)
		if !slices.ContainsFunc(recs, func(r Record) bool { return r.ItemKey == extra.ItemKey }) {
			want++
		}
		assert.Len(t, again, want)
	})
}
