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

// JournalFile is the run directory's append-only log of finished work items.
const JournalFile = "journal.jsonl"

// Journal appends finished items, one JSON line each, and fsyncs every line before
// the item counts as done: whatever moment the process dies, the file holds whole
// lines of finished items and at most one partial trailing line, which the next
// open cuts off.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// OpenJournal replays the journal at path (creating it when absent), drops a partial
// trailing line, and returns the records already finished, first occurrence of each
// item only, so nothing is counted twice.
func OpenJournal(path string) (*Journal, []Record, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open journal: %w", err)
	}
	recs, good, err := replay(f, path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("cut the partial last line of %s: %w", path, err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("seek %s: %w", path, err)
	}
	return &Journal{f: f, path: path}, recs, nil
}

// ReadJournal returns the finished records of a journal without opening it for
// writing (merge and rescore read finished runs, possibly on read-only storage).
func ReadJournal(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	defer f.Close()
	recs, _, err := replay(f, path)
	return recs, err
}

// replay parses every complete line and returns the byte offset after the last one.
// A line without its newline is the write the process died in; a complete line that
// does not parse is corruption and an error.
func replay(r io.Reader, path string) ([]Record, int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var (
		recs []Record
		seen = map[ItemKey]bool{}
		good int64
		line int
	)
	for {
		b, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return recs, good, nil // b, if any, is a partial trailing line
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read journal %s: %w", path, err)
		}
		line++
		var rec Record
		if err := json.Unmarshal(bytes.TrimSpace(b), &rec); err != nil {
			return nil, 0, fmt.Errorf("journal %s line %d is corrupt (not a partial write): %w", path, line, err)
		}
		good += int64(len(b))
		if !seen[rec.ItemKey] {
			seen[rec.ItemKey] = true
			recs = append(recs, rec)
		}
	}
}

// Append writes one record and makes it durable before returning.
func (j *Journal) Append(rec Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode journal record %+v: %w", rec.ItemKey, err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("append to %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", j.path, err)
	}
	return nil
}

// Close closes the file.
func (j *Journal) Close() error { return j.f.Close() }
