package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/entropix-eval/entropix-eval/reports"
)

// Outputs are the writers a finished run directory needs.
type Outputs struct {
	Grader Grader
	Arrow  ArrowWriter
	// Report, when set, writes the files derived from the final ones (report.html,
	// figures) once a run, merge or rescore has finished, still under the
	// directory's lock so no other writer interleaves.
	Report func(dir string) error
}

func (o Outputs) check() error {
	if o.Grader == nil {
		return errors.New("no grader configured")
	}
	if o.Arrow == nil {
		return errors.New("no Arrow writer configured")
	}
	return nil
}

// Finalize rebuilds every result file of a run directory from its journal, grading
// the saved responses with the current extraction code. The files are a pure
// function of (manifest, problems, journal), so a resumed, merged or rescored
// run writes the same bytes as an uninterrupted one (except latency_ms, which
// is wall time). Then out.Report, when set, writes the files derived from
// them, the manifest saying finishing meanwhile; it says complete only once
// every file is written.
func Finalize(dir string, out Outputs) error {
	if err := out.check(); err != nil {
		return err
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	problems, err := ReadProblems(dir)
	if err != nil {
		return err
	}
	recs, err := ReadJournal(filepath.Join(dir, JournalFile))
	if err != nil {
		return err
	}
	grs, err := gradeRecords(m, problems, recs, out.Grader)
	if err != nil {
		return fmt.Errorf("run directory %s: %w", dir, err)
	}
	prov := m.ArrowProvenance()
	id := identityOf(m)
	rows, err := resultRows(m.Task.Name, id, grs)
	if err != nil {
		return err
	}
	if err := out.Arrow.WriteResults(filepath.Join(dir, ResultsArrow), rows, prov); err != nil {
		return fmt.Errorf("write %s: %w", ResultsArrow, err)
	}
	traces, err := traceRows(m.Task.Name, id, grs)
	if err != nil {
		return err
	}
	if err := out.Arrow.WriteTraces(filepath.Join(dir, TracesArrow), traces, prov); err != nil {
		return fmt.Errorf("write %s: %w", TracesArrow, err)
	}
	if err := writeParquetCopies(dir, out.Arrow, !m.Config.NoParquet, ResultsArrow, TracesArrow); err != nil {
		return err
	}
	summary := summarize(m, grs)
	if err := corpusAggregates(m, grs, out.Grader, summary); err != nil {
		return fmt.Errorf("run directory %s: %w", dir, err)
	}
	if m.Task.OutputType != "" {
		if err := scoredAggregates(m, grs, summary); err != nil {
			return err
		}
	}
	if err := writeJSONAtomic(filepath.Join(dir, ResultsJSONFile), summary); err != nil {
		return err
	}
	if err := writeSamples(dir, m.Task, id.runKey, grs); err != nil {
		return err
	}
	// The finish time is kept once set (the lm-eval files are named by it),
	// so a rescore or a second attempt at finishing writes the same names.
	if m.Finished == nil || m.Status == StatusRunning {
		now := time.Now().UTC()
		m.Finished = &now
	}
	if out.Report == nil {
		m.Status = StatusComplete
		return writeManifest(dir, m)
	}
	m.Status = StatusFinishing
	if err := writeManifest(dir, m); err != nil {
		return err
	}
	if err := out.Report(dir); err != nil {
		return err
	}
	return MarkComplete(dir)
}

// MarkComplete marks a finishing run directory complete, once the files
// derived from its results are written (Finalize, or report finishing a run
// that a kill or a full disk stopped while finishing).
func MarkComplete(dir string) error {
	m, err := ReadManifest(dir)
	if err != nil {
		return err
	}
	if m.Status == StatusComplete {
		return nil
	}
	if m.Status != StatusFinishing {
		return fmt.Errorf("run directory %s is %s, not finishing: run it to the end first", dir, m.Status)
	}
	m.Status = StatusComplete
	return writeManifest(dir, m)
}

// ParquetCopier is an ArrowWriter that also writes Parquet copies of its files.
type ParquetCopier interface {
	WriteParquetCopy(arrowPath string) error
}

// writeParquetCopies writes the Parquet copy of each named Arrow file of dir
// when on and the writer can, and otherwise removes a copy an earlier session
// left (it would hold stale rows).
func writeParquetCopies(dir string, w ArrowWriter, on bool, names ...string) error {
	pc, ok := w.(ParquetCopier)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if on && ok {
			if err := pc.WriteParquetCopy(path); err != nil {
				return fmt.Errorf("write the Parquet copy of %s: %w", name, err)
			}
			continue
		}
		if err := os.Remove(reports.ParquetPath(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
