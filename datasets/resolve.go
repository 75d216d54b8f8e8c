package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/internal/hfcache"
)

// DataSource says where a task's splits are read from, all offline. For each
// split the first of these that has files wins:
//
//  1. Files[split]: a file or glob given on the command line (--dataset for
//     the evaluated split, --train-dataset for the few-shot split);
//  2. the task's dataset_kwargs.data_files;
//  3. each of DataDirs laid out like the hub:
//     DIR/<dataset_path>/<dataset_name>/<split>-*.parquet (or <split>/*.parquet),
//     or the files its dataset card (README.md `configs:` data_files) names;
//  4. the Hugging Face hub cache (HubCaches):
//     datasets--ORG--NAME/snapshots/<rev>/ with the same card and layouts,
//     refs/main's revision first;
//  5. the datasets library cache (DatasetsCaches):
//     ORG___NAME/<dataset_name>/<version>/<hash>/*-<split>.arrow.
//
// Nothing is downloaded; a miss lists every place searched.
type DataSource struct {
	Files          map[string]string
	DataDirs       []string
	HubCaches      []string
	DatasetsCaches []string
}

// DatasetsCacheDirs lists the datasets library's cache directories, most
// specific first: $HF_DATASETS_CACHE, $HF_HOME/datasets,
// $XDG_CACHE_HOME/huggingface/datasets and ~/.cache/huggingface/datasets.
func DatasetsCacheDirs() []string {
	return hfcache.Dirs("datasets", "HF_DATASETS_CACHE")
}

// ErrDataNotFound: no source holds a split.
var ErrDataNotFound = errors.New("data not found offline")

// Locate returns the files of one split of the task's dataset.
func (s DataSource) Locate(t *Task, split string) ([]string, error) {
	var searched []string
	try := func(pattern string) []string {
		searched = append(searched, pattern)
		m, _ := filepath.Glob(pattern)
		slices.Sort(m)
		return m
	}
	if p := s.Files[split]; p != "" {
		if m := try(p); len(m) > 0 {
			return m, nil
		}
		return nil, fmt.Errorf("split %s: %s matches no file", split, p)
	}
	for _, f := range t.DataFiles[split] {
		p := f
		if !filepath.IsAbs(p) && t.Source != "builtin" {
			if _, err := os.Stat(filepath.Join(filepath.Dir(t.File), p)); err == nil {
				p = filepath.Join(filepath.Dir(t.File), p) // relative to the task file
			}
		}
		if m := try(p); len(m) > 0 {
			return m, nil
		}
	}
	if len(t.DataFiles) > 0 && t.DatasetPath != "" && !strings.Contains(t.DatasetPath, "/") {
		// dataset_path: json/parquet/csv with data_files: the files are the data.
		return nil, s.notFound(t, split, searched)
	}
	layouts := hubLayouts(t.DatasetName, split)
	var unmatched []string // data files in a repo that no layout matched
	// inRepo tries the dataset card's data_files for the config (they win, as
	// in the datasets library), then the standard layouts.
	inRepo := func(repo string) []string {
		files, err := cardDataFiles(repo, t.DatasetName)
		if err != nil {
			searched = append(searched, fmt.Sprintf("%s (unreadable: %v)", filepath.Join(repo, "README.md"), err))
		}
		for _, p := range files[split] {
			if m := try(filepath.Join(repo, filepath.FromSlash(p))); len(m) > 0 {
				return m
			}
		}
		for _, l := range layouts {
			if m := try(filepath.Join(repo, l)); len(m) > 0 {
				return m
			}
		}
		if t.DatasetName == "" {
			// A configless task on a repo with one config folder: the
			// datasets library takes the only config (nq_open/nq_open/).
			if m := try(filepath.Join(repo, "*", split+"-*.parquet")); len(m) > 0 && oneDir(m) {
				return m
			}
		}
		loose := dataFilesIn(repo)
		if f, ok := onlyUnnamedFile(loose); ok && split == "train" && t.DatasetName == "" {
			// datasets' rule without a card: a file whose name names no
			// split belongs to train (Maxwell-Jia/AIME_2024's one file).
			return []string{f}
		}
		unmatched = append(unmatched, loose...)
		return nil
	}
	for _, dir := range s.DataDirs {
		if m := inRepo(filepath.Join(dir, filepath.FromSlash(t.DatasetPath))); len(m) > 0 {
			return m, nil
		}
	}
	if org, name, ok := strings.Cut(t.DatasetPath, "/"); ok {
		for _, cache := range s.HubCaches {
			repo := filepath.Join(cache, "datasets--"+org+"--"+name)
			snaps := hfcache.Snapshots(repo)
			for _, snap := range snaps {
				if m := inRepo(snap); len(m) > 0 {
					return m, nil
				}
			}
			if len(snaps) == 0 {
				searched = append(searched, filepath.Join(repo, "snapshots", "*"))
			}
		}
		config := t.DatasetName
		if config == "" {
			config = "default"
		}
		for _, cache := range s.DatasetsCaches {
			base := filepath.Join(cache, org+"___"+name, config, "*", "*")
			if m := try(filepath.Join(base, "*-"+split+".arrow")); len(m) > 0 {
				return newestBuild(m), nil
			}
			if m := try(filepath.Join(base, "*-"+split+"-*-of-*.arrow")); len(m) > 0 {
				return newestBuild(m), nil
			}
		}
	}
	err := s.notFound(t, split, searched)
	if len(unmatched) > 0 {
		// A file under a custom name that neither a layout nor the dataset
		// card maps to this config and split: only the user knows if it is
		// the split.
		err = fmt.Errorf("%w\nthese data files are there under names no layout or dataset card (README.md configs) maps to config %q, split %q; if one is the split, pass it with --dataset (or --train-dataset):\n  %s",
			err, t.DatasetName, split, strings.Join(unmatched, "\n  "))
	}
	return nil, err
}

func (s DataSource) notFound(t *Task, split string, searched []string) error {
	return fmt.Errorf("task %s: split %q of %s%s: %w; searched:\n  %s\npass the file with --dataset (evaluated split) or --train-dataset (few-shot split), a local mirror with --data-dir, or dataset_kwargs.data_files in the task",
		t.Name, split, t.DatasetPath, optional("/", t.DatasetName), ErrDataNotFound, strings.Join(searched, "\n  "))
}

func optional(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// hubLayouts are the file layouts of a dataset repo on the hub: per-config
// folders (<name>/<split>-00000-of-00001.parquet), the refs/convert/parquet
// branch (<name>/<split>/0000.parquet), and configless repos (data/...).
func hubLayouts(config, split string) []string {
	var out []string
	if config == "" {
		config = "default" // the refs/convert/parquet branch's name for a configless repo
	}
	out = append(out, filepath.Join(config, split+"-*.parquet"), filepath.Join(config, split, "*.parquet"),
		filepath.Join("data", config, split+"-*.parquet"))
	out = append(out, filepath.Join("data", split+"-*.parquet"), split+"-*.parquet", filepath.Join(split, "*.parquet"))
	// Files on the main branch named after the split (math-ai/aime25's
	// test.jsonl), as the datasets library's split patterns find them.
	for _, ext := range []string{".jsonl", ".csv", ".parquet"} {
		out = append(out, split+ext, filepath.Join("data", split+ext))
	}
	return out
}

func oneDir(files []string) bool {
	for _, f := range files {
		if filepath.Dir(f) != filepath.Dir(files[0]) {
			return false
		}
	}
	return true
}

// onlyUnnamedFile is the one data file when there is exactly one and its
// name has no split word (train, test, validation, dev).
func onlyUnnamedFile(files []string) (string, bool) {
	if len(files) != 1 {
		return "", false
	}
	base := strings.ToLower(filepath.Base(files[0]))
	for _, w := range []string{"train", "test", "valid", "dev", "eval"} {
		if strings.Contains(base, w) {
			return "", false
		}
	}
	return files[0], true
}

// newestBuild keeps the files of one datasets-cache build (version/hash
// folder): the most recently written one when several builds are cached.
func newestBuild(files []string) []string {
	best, bestT := "", time.Time{}
	for _, f := range files {
		if st, err := os.Stat(filepath.Dir(f)); err == nil && (best == "" || st.ModTime().After(bestT)) {
			best, bestT = filepath.Dir(f), st.ModTime()
		}
	}
	var out []string
	for _, f := range files {
		if filepath.Dir(f) == best {
			out = append(out, f)
		}
	}
	return out
}

// TaskData are the documents a task evaluates and draws shots from.
type TaskData struct {
	Docs  *Dataset
	Shots []Problem
	// Files are every data file read, for the manifest's checksums.
	Files []string
	// ShotsFromEvalSplit says shots come from the evaluated split (lm-eval
	// then excludes the doc itself).
	ShotsFromEvalSplit bool
}

// LoadTaskData loads the evaluated split and the few-shot pool of a task,
// each after the task's process_docs. The pool is the inline samples, or the
// few-shot split; it is read when the task takes shots (numFewshot > 0), or
// when its process_docs draws random numbers, because lm-eval processes the
// pool first and that changes what the evaluated split gets.
func LoadTaskData(t *Task, src DataSource, numFewshot int) (*TaskData, error) {
	split := t.EvalSplit()
	files, err := src.Locate(t, split)
	if err != nil {
		return nil, err
	}
	docs, err := loadDocFiles(files)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	}
	out := &TaskData{Files: files}
	proc := newDocProcessor(t)
	inline := t.Fewshot.Split == "" && len(t.Fewshot.Samples) > 0
	shotSplit := t.ShotSplit()
	var pool *Dataset
	if !inline && shotSplit != "" && (numFewshot > 0 || (t.ProcessDocs != nil && t.ProcessDocs.port.UsesRandom)) {
		pool = docs
		if shotSplit != split {
			sf, err := src.Locate(t, shotSplit)
			if err != nil {
				return nil, fmt.Errorf("few-shot examples: %w", err)
			}
			if pool, err = loadDocFiles(sf); err != nil {
				return nil, fmt.Errorf("task %s: few-shot split %s: %w", t.Name, shotSplit, err)
			}
			out.Files = append(out.Files, sf...)
		}
		if pool, err = proc.process(shotSplit, pool); err != nil {
			return nil, err
		}
	}
	if out.Docs, err = proc.process(split, docs); err != nil {
		return nil, err
	}
	if len(out.Docs.Problems) == 0 {
		return nil, fmt.Errorf("task %s: split %s: process_docs left no documents: %w", t.Name, split, ErrNoRows)
	}
	if numFewshot == 0 {
		return out, nil
	}
	// lm-eval passes the evaluated doc to the sampler (which then draws one
	// more and drops it) when fewshot_config.split == test_split, compared as
	// written: two unset splits are equal too.
	out.ShotsFromEvalSplit = t.Fewshot.Split == t.TestSplit
	if inline {
		for i, d := range t.Fewshot.Samples {
			out.Shots = append(out.Shots, Problem{ID: fmt.Sprint(i), Index: i, Row: i, Doc: d, Source: t.File + " fewshot_config.samples",
				Columns: FieldsOf(t.Fewshot.SampleColumns...).forDoc(d)})
		}
		return out, nil
	}
	if pool == nil {
		return nil, fmt.Errorf("task %s: %d-shot, but the task names no few-shot split or samples", t.Name, numFewshot)
	}
	out.Shots = pool.Problems
	return out, nil
}
