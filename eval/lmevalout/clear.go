package lmevalout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// ourFile matches the names Write gives its files, and their atomic-write
// temporaries: results_<date_id>.json and samples_<task>_<date_id>.jsonl.
var ourFile = regexp.MustCompile(`^(\.)?(results|samples_.+)_\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{6}\.jsonl?(\.tmp-[0-9]+)?$`)

// removeOurs clears the lm-eval folder of a run directory for a rewrite: it
// removes only the files Write names, two levels down (<run>/<model>/), and
// then the folders that emptied. Anything else someone put there stays, and
// so do the folders holding it.
func removeOurs(root string) error {
	if st, err := os.Lstat(root); err == nil && !st.IsDir() {
		return fmt.Errorf("%s is not a directory (a link or a file); remove it to write lm-eval files", root)
	}
	runs, err := subdirs(root)
	if err != nil {
		return err
	}
	for _, run := range runs {
		models, err := subdirs(run)
		if err != nil {
			return err
		}
		for _, model := range models {
			entries, err := os.ReadDir(model)
			if err != nil {
				return err
			}
			for _, e := range entries {
				if e.Type().IsRegular() && ourFile.MatchString(e.Name()) {
					if err := os.Remove(filepath.Join(model, e.Name())); err != nil {
						return err
					}
				}
			}
			removeIfEmpty(model)
		}
		removeIfEmpty(run)
	}
	removeIfEmpty(root)
	return nil
}

// subdirs lists dir's folders (not symlinks to folders); a missing dir has none.
func subdirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// removeIfEmpty removes dir when nothing is left in it; os.Remove refuses a
// folder that is not empty, which is the point.
func removeIfEmpty(dir string) { _ = os.Remove(dir) }
