package eval

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/entropix-eval/entropix-eval/internal/usage"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/rundir"
)

// markerText is RunDirMarker's content. Only a directory holding the marker
// (or, from before the marker existed, a manifest.json) is ever written into,
// and only the files we create there by name are ever removed or rewritten, so
// --out pointed at a directory of someone's own files is refused instead of
// cleared.
const markerText = "entropix-eval writes this directory; it removes or rewrites only the files it made here, by name\n"

// ErrNotRunDir marks a directory that holds files but is not a run directory.
var ErrNotRunDir = usage.New("not a run directory")

// dirState says whether dir may be written into: ours (it holds the marker or a
// manifest), fresh (missing, or empty but for a lock file), or neither.
func dirState(dir string) (ours, fresh bool, err error) {
	for _, name := range []string{RunDirMarker, ManifestFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true, false, nil
		}
	}
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, true, nil
	}
	if err != nil {
		return false, false, err
	}
	defer f.Close()
	// Two names are enough to tell "empty but for .lock" from anything else,
	// however large the directory.
	names, err := f.Readdirnames(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, false, err
	}
	for _, n := range names {
		if n != LockFile {
			return false, false, nil
		}
	}
	return false, true, nil
}

// checkRunDir refuses a directory that holds files but is not ours.
func checkRunDir(dir string) error {
	ours, fresh, err := dirState(dir)
	if err != nil {
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	if !ours && !fresh {
		return fmt.Errorf("output directory %s holds files but is not a run directory (no %s or %s); "+
			"entropix-eval writes only into a new or empty directory or one of its own runs, so nothing of yours is overwritten or removed: "+
			"use another --out: %w", dir, ManifestFile, RunDirMarker, ErrNotRunDir)
	}
	return nil
}

// markRunDir writes the marker into a locked directory that does not hold it yet.
func markRunDir(dir string) error {
	path := filepath.Join(dir, RunDirMarker)
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, markerText); return err }); err != nil {
		return fmt.Errorf("mark run directory: %w", err)
	}
	return nil
}

// ClaimDir creates or claims a directory that is written into before, or
// beside, a locked run: the top of a group run (one run directory per task and
// group_results.json), or a demo's run directory before its data file is
// written. The same rules as a run directory, without taking the lock.
func ClaimDir(dir string) error {
	if err := checkRunDir(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return markRunDir(dir)
}

// tempOf matches the temporaries of reports.WriteFileAtomic: "." + name +
// ".tmp-" + digits, capturing name.
var tempOf = regexp.MustCompile(`^\.(.+)\.tmp-[0-9]+$`)

// ourTopFiles are the files a run, merge, rescore or report writes at the top
// of a run directory (or a group's).
var ourTopFiles = map[string]bool{
	RunDirMarker: true, ManifestFile: true, ProblemsFile: true, JournalFile: true,
	ResultsArrow: true, TracesArrow: true, ResultsJSONFile: true, SamplesFile: true, GroupResultsFile: true,
	rundir.SummaryFile: true, rundir.ComparisonsFile: true, rundir.HTMLFile: true,
	reports.ParquetPath(ResultsArrow): true, reports.ParquetPath(TracesArrow): true,
	reports.ParquetPath(rundir.SummaryFile): true, reports.ParquetPath(rundir.ComparisonsFile): true,
}

// ourSubdirFile says whether name is a file the report writes into its
// figures/ or tables/ folder (the names carry sampler slugs, the extensions are fixed).
var ourSubdirFile = map[string]*regexp.Regexp{
	rundir.FiguresDir: regexp.MustCompile(`^[A-Za-z0-9._-]+\.(svg|pdf)$`),
	rundir.TablesDir:  regexp.MustCompile(`^[A-Za-z0-9._-]+\.(tex|md)$`),
}

// removeStaleTemps deletes the atomic-write temporaries of files we write,
// at the top of dir and in figures/ and tables/ (the lm-eval folder is
// cleared by its writer), returning their paths relative to dir. Any other
// file, dot-file or temporary-looking name stays.
func removeStaleTemps(dir string) ([]string, error) {
	var removed []string
	for _, sub := range []string{"", rundir.FiguresDir, rundir.TablesDir} {
		names, err := readNames(filepath.Join(dir, sub))
		if err != nil {
			return removed, fmt.Errorf("remove stale temporary files in %s: %w", dir, err)
		}
		for _, n := range names {
			m := tempOf.FindStringSubmatch(n)
			if m == nil {
				continue
			}
			if sub == "" && !ourTopFiles[m[1]] || sub != "" && !ourSubdirFile[sub].MatchString(m[1]) {
				continue
			}
			rel := filepath.Join(sub, n)
			path := filepath.Join(dir, rel)
			if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
				continue
			}
			if err := os.Remove(path); err != nil {
				return removed, fmt.Errorf("remove stale temporary file: %w", err)
			}
			removed = append(removed, rel)
		}
	}
	return removed, nil
}

// readNames lists a directory's entries; a missing path or one that is not a
// directory (a symlink included) has none.
func readNames(dir string) ([]string, error) {
	st, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) || err == nil && !st.IsDir() {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
