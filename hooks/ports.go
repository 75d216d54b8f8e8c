package hooks

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// PortRef names one Python hook a task uses: `!function utils.NAME` read
// from Folder/utils.py whose bytes hash to SHA256. It is stored with the task
// (manifest), so a run directory is rescored with the port it ran with.
type PortRef struct {
	// Folder is the directory of the YAML that names the hook, as a path
	// relative to the task tree (gpqa/generative); Module is the file's
	// module name (utils).
	Folder   string `json:"folder"`
	Module   string `json:"module"`
	Function string `json:"function"`
	SHA256   string `json:"sha256"`
}

func (r PortRef) String() string {
	return fmt.Sprintf("%s.%s (%s.py, sha256 %s)", r.Module, r.Function, path.Join(r.Folder, r.Module), r.SHA256)
}

// Source is one upstream file a port reproduces: lm-eval's
// lm_eval/tasks/<Folder>/<module>.py at the pinned commit, by hash.
type Source struct{ Folder, SHA256 string }

// Shuffler is the part of CPython's random module the ports draw from
// (datasets.PyRandom implements it).
type Shuffler interface{ RandBelow(n int) int }

// DocsEnv is what a process_docs port may use besides the rows: Python's
// global random module, seeded as lm-eval's evaluator seeds it.
type DocsEnv struct{ Random Shuffler }

// Rows are documents with their column order (Go maps have none).
type Rows struct {
	Docs    []map[string]any
	Columns []string
	// Source is, for a process_docs that drops rows, the input row of each
	// output doc (nil: row i came from row i).
	Source []int
}

// Result is one metric a process_results port returns.
type Result struct {
	Metric string
	Value  float64
}

// Port is the Go version of one Python function of a task's utils.py.
// Exactly one of its function fields is set, or NotPorted says why the
// function has no Go version although its file is known.
type Port struct {
	Function string
	Sources  []Source
	// Docs is a process_docs: rows in, rows out (Dataset.map keeps the
	// input columns and appends new ones; Dataset.filter drops rows).
	Docs func(in Rows, env DocsEnv) (Rows, error)
	// Text is a doc_to_text or doc_to_target.
	Text func(doc map[string]any) (string, error)
	// Samples is a fewshot_config.samples function.
	Samples func() Rows
	// Results is a process_results for one filtered response; columns is
	// the doc's key order.
	Results func(doc map[string]any, columns []string, response string) ([]Result, error)
	// IntResults are the metrics the Python process_results returns as int
	// (1 if … else 0): lm-eval's samples file logs them as 1, not 1.0.
	IntResults []string
	// Filter is a filter class used as filter_list function.
	Filter *Filter
	// UsesRandom says Docs draws from Python's global random module, so the
	// order lm-eval processes splits in changes its output.
	UsesRandom bool
	// Bind, when set, makes the port for one place: the function reads its
	// folder's name or another file of the task tree (mmlu_prox's language
	// and its lang_libs.py table).
	Bind func(ctx PortContext) (*Port, error)
	// NotPorted is set when the function exists upstream but is refused.
	NotPorted string
}

// PortContext is where a port is used: the folder of the Python file, and a
// reader of other files relative to that folder (hash-check what you read).
type PortContext struct {
	Folder   string
	ReadFile func(rel string) ([]byte, error)
}

var ports []Port

func registerPort(p Port) { ports = append(ports, p) }

// ErrNoPort: the hook has no Go port for that file.
var ErrNoPort = errors.New("no Go port")

// LookupPort finds the port of ref: same function, same file hash, and a
// source folder that ref.Folder ends with (include paths may start anywhere
// above lm-eval's task tree, or inside it).
func LookupPort(ref PortRef) (*Port, error) {
	known := false
	for i := range ports {
		p := &ports[i]
		for _, s := range p.Sources {
			if s.SHA256 != ref.SHA256 {
				continue
			}
			known = true
			if p.Function == ref.Function && folderMatches(ref.Folder, s.Folder) {
				if p.NotPorted != "" {
					return nil, fmt.Errorf("%s: %s", ref, p.NotPorted)
				}
				return p, nil
			}
		}
	}
	if known {
		return nil, fmt.Errorf("%s: %w of this function (its file is known; the ported ones: %s)", ref, ErrNoPort, strings.Join(portedIn(ref.SHA256), ", "))
	}
	return nil, fmt.Errorf("%s: %w for a file with this hash (ports exist for lm-eval %s; a changed utils.py is never run under an old port)", ref, ErrNoPort, PinnedCommit)
}

// Canonical is ref with Folder replaced by the lm-eval folder of the source
// it matched ("gpqa/generative", wherever the task tree lies), so that what
// is stored with a run does not depend on where the tree was read from.
func (ref PortRef) Canonical() PortRef {
	for _, p := range ports {
		if p.Function != ref.Function {
			continue
		}
		for _, s := range p.Sources {
			if s.SHA256 == ref.SHA256 && folderMatches(ref.Folder, s.Folder) {
				ref.Folder = s.Folder
				return ref
			}
		}
	}
	return ref
}

// PinnedCommit is the lm-evaluation-harness commit the ports were read from.
const PinnedCommit = "4e7e0d47"

func portedIn(sha string) []string {
	var out []string
	for _, p := range ports {
		if p.NotPorted == "" && slices.ContainsFunc(p.Sources, func(s Source) bool { return s.SHA256 == sha }) {
			out = append(out, p.Function)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// folderMatches: dir is folder, or ends with "/"+folder, or is a suffix of
// folder on a path boundary (an include path inside lm-eval's tree).
func folderMatches(dir, folder string) bool {
	dir, folder = path.Clean(dir), path.Clean(folder)
	return dir == "." || dir == folder || strings.HasSuffix(dir, "/"+folder) || strings.HasSuffix(folder, "/"+dir)
}
