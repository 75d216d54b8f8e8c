package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// journalFile is the part of *os.File the journal writes through (tests inject
// failing writes).
type journalFile interface {
	io.Writer
	Truncate(size int64) error
	Sync() error
	Close() error
}

// Journal appends finished items, one JSON line each, in one write(2) on an
// O_APPEND descriptor, and fsyncs every line before the item counts as done. An
// append that fails is cut back to the last complete line before the next one
// starts; if even that fails, the journal refuses every later append, so no writer
// can put a line after a torn one. Whatever moment the process dies, the file holds
// whole lines and at most one torn tail, which the next open repairs.
type Journal struct {
	mu     sync.Mutex
	f      journalFile
	path   string
	size   int64 // bytes of complete lines
	broken error
	// Repaired says what opening the journal dropped (torn writes), for the log;
	// empty when the file was whole.
	Repaired []string
}

// OpenJournal replays the journal at path (creating it when absent), repairs a torn
// tail, and returns the records already finished, first occurrence of each item
// only, so nothing is counted twice.
func OpenJournal(path string) (*Journal, []Record, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open journal: %w", err)
	}
	rp, err := replay(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	j := &Journal{f: f, path: path, size: rp.size, Repaired: rp.dropped}
	switch {
	case rp.rewrite:
		f.Close()
		if err := rewriteJournal(path, rp.kept); err != nil {
			return nil, nil, err
		}
		if j.f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o644); err != nil {
			return nil, nil, fmt.Errorf("open journal: %w", err)
		}
	case rp.end != rp.size:
		if err := f.Truncate(rp.size); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("cut the torn last line of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("sync %s: %w", path, err)
		}
	}
	return j, rp.recs, nil
}

// ReadJournal returns the finished records of a journal without opening it for
// writing (merge and rescore read finished runs, possibly on read-only storage).
// Torn writes are skipped exactly as OpenJournal would drop them.
func ReadJournal(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	rp, err := replay(f, path)
	return rp.recs, err
}

// span is a byte range [start, end) of the journal.
type span struct{ start, end int64 }

type replayed struct {
	recs    []Record
	kept    []span // the bytes of every line kept, in order
	size    int64  // bytes the repaired journal holds
	end     int64  // bytes the file holds now
	rewrite bool   // a torn write sits before the last line: the file must be rewritten
	dropped []string
}

// recordStart begins every journal line: Record's first field is ItemKey's sampler.
// Inside a JSON string the quotes would be escaped, so it marks record starts only.
var recordStart = []byte(`{"sampler":`)

// replay parses every line. A torn write can show up as a last line without its
// newline (the process died mid-write), or, in journals written before appends
// were cut back on failure, as a fragment glued to the front of the next line: the
// fragment is dropped and the whole record after it kept. A line with no record
// in it is dropped. Every drop is described; a dropped item simply runs again.
func replay(r io.ReadSeeker, path string) (replayed, error) {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return replayed{}, fmt.Errorf("read journal %s: %w", path, err)
	}
	br := bufio.NewReaderSize(r, 1<<20)
	var (
		rp   replayed
		seen = map[ItemKey]bool{}
		off  int64
	)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 && (err == nil || errors.Is(err, io.EOF)) {
			start := off
			off += int64(len(b))
			complete := err == nil
			rec, skip, ok := parseLine(b)
			switch {
			case !complete:
				rp.dropped = append(rp.dropped, fmt.Sprintf("line %d: a torn write of %d bytes at the end (%s)", line, len(b), preview(b)))
			case !ok:
				rp.dropped = append(rp.dropped, fmt.Sprintf("line %d: %d bytes holding no whole record (%s)", line, len(b), preview(b)))
				rp.rewrite = true
			default:
				if skip > 0 {
					rp.dropped = append(rp.dropped, fmt.Sprintf("line %d: a torn write of %d bytes before its record (%s)", line, skip, preview(b[:skip])))
					rp.rewrite = true
				}
				rp.kept = append(rp.kept, span{start + int64(skip), off})
				rp.size += off - start - int64(skip)
				if !seen[rec.ItemKey] {
					seen[rec.ItemKey] = true
					rp.recs = append(rp.recs, rec)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			rp.end = off
			return rp, nil
		}
		if err != nil {
			return replayed{}, fmt.Errorf("read journal %s: %w", path, err)
		}
	}
}

// parseLine decodes a complete line, or the last record start in it when a torn
// fragment precedes it; skip is the length of that fragment.
func parseLine(b []byte) (rec Record, skip int, ok bool) {
	if json.Unmarshal(bytes.TrimSpace(b), &rec) == nil {
		return rec, 0, true
	}
	i := bytes.LastIndex(b, recordStart)
	if i <= 0 {
		return Record{}, 0, false
	}
	rec = Record{}
	if json.Unmarshal(bytes.TrimSpace(b[i:]), &rec) != nil {
		return Record{}, 0, false
	}
	return rec, i, true
}

func preview(b []byte) string {
	const n = 40
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// rewriteJournal replaces the journal with its kept lines, atomically.
func rewriteJournal(path string, kept []span) error {
	src, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("repair journal: %w", err)
	}
	defer src.Close()
	err = WriteFileAtomic(path, func(w io.Writer) error {
		for _, s := range kept {
			if _, err := io.Copy(w, io.NewSectionReader(src, s.start, s.end-s.start)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("repair journal: %w", err)
	}
	return nil
}

// Append writes one record and makes it durable before returning. On failure the
// partial line is cut off again, so the journal never holds a torn line that a
// later append would follow.
func (j *Journal) Append(rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode journal record %+v: %w", rec.ItemKey, err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.broken != nil {
		return fmt.Errorf("journal %s is stopped after a failed append: %w", j.path, j.broken)
	}
	_, err = j.f.Write(b)
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		if terr := j.f.Truncate(j.size); terr != nil {
			j.broken = fmt.Errorf("%w; cutting the partial line failed too: %w", err, terr)
			return fmt.Errorf("append to %s: %w", j.path, j.broken)
		}
		return fmt.Errorf("append to %s (the partial line was cut off): %w", j.path, err)
	}
	j.size += int64(len(b))
	return nil
}

// Close closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	if j.broken == nil {
		j.broken = errors.New("journal closed")
	}
	return err
}
