package pyhooks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

// Hook is one `!function module.name` of a task: the Python file it is read
// from (module.py next to the YAML that names it) and the name.
type Hook struct {
	File     string `json:"file"`
	Function string `json:"function"`
	// Want is what Check expects the name to be: "class" (a filter step),
	// "function", "" for either, or "registry_filter" (a filter lm-eval
	// registers by name; File is empty).
	Want string `json:"want,omitempty"`
}

func (h Hook) String() string {
	if h.File == "" {
		return "lm-eval's " + h.Function
	}
	return filepath.Base(h.File) + ":" + h.Function
}

// SHA256 is the hex SHA-256 of the hook's file, for manifests and
// fingerprints: a changed hook never resumes into a run made with another.
func (h Hook) SHA256() (string, error) {
	b, err := os.ReadFile(h.File)
	if err != nil {
		return "", fmt.Errorf("python hook %s: %w", h, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// HookError is a Python exception raised by a hook (or by loading its
// module), with where it happened.
type HookError struct {
	Task string `json:"-"`
	Hook Hook   `json:"-"`
	Kind string `json:"-"` // process_docs, doc_to_text, filter, ...
	// DocID is the doc the hook failed on, -1 when the call was not per doc;
	// Docs then are the ids of the batch it was given (nil if none).
	DocID     int    `json:"-"`
	Docs      []int  `json:"-"`
	Type      string `json:"type"`
	Message   string `json:"message"`
	Traceback string `json:"traceback"`
	// Index is the failing item within its batch, from the Python side.
	Index *int `json:"index"`
}

func (e *HookError) Error() string {
	where := fmt.Sprintf("task %s: %s hook %s", e.Task, e.Kind, e.Hook)
	switch {
	case e.DocID >= 0:
		where += fmt.Sprintf(" on doc %d", e.DocID)
	case len(e.Docs) > 0:
		where += " on " + docRange(e.Docs)
	}
	return fmt.Sprintf("%s raised %s: %s\n%s", where, e.Type, e.Message, indent(e.Traceback))
}

// docRange names a batch's docs by its first and last id.
func docRange(ids []int) string {
	if len(ids) == 1 {
		return fmt.Sprintf("doc %d", ids[0])
	}
	return fmt.Sprintf("docs %d-%d", ids[0], ids[len(ids)-1])
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// Call names a request for error messages: the task, which hook and the doc
// ids of its items (nil when the items are not docs).
type Call struct {
	Task string
	Kind string
	Hook Hook
	Docs []int
}

// do runs one request and gives errors their context: a HookError gets the
// task, the hook and the doc; an interpreter that died gets the same names.
func (b *Bridge) do(ctx context.Context, c Call, req request, items [][]byte) ([]json.RawMessage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.ensure(ctx); err != nil {
		return nil, err
	}
	if req.Hook == nil {
		req.Hook = &c.Hook
	}
	out, err := b.roundTrip(ctx, req, items)
	if err == nil {
		return out, nil
	}
	if he, ok := err.(*HookError); ok {
		he.Task, he.Hook, he.Kind, he.DocID = c.Task, c.Hook, c.Kind, -1
		if he.Index != nil && *he.Index >= 0 && *he.Index < len(c.Docs) {
			he.DocID = c.Docs[*he.Index]
		} else {
			he.Docs = c.Docs
		}
		return nil, he
	}
	docs := ""
	if len(c.Docs) > 0 {
		docs = " (" + docRange(c.Docs) + ")"
	}
	return nil, fmt.Errorf("task %s: %s hook %s%s: %w", c.Task, c.Kind, c.Hook, docs, err)
}

// ProcessDocs runs a process_docs hook over one split's rows (each a JSON
// object, as datasets.EncodeDoc writes it) in column order, and returns the
// processed rows and their columns.
func (b *Bridge) ProcessDocs(ctx context.Context, c Call, columns []string, rows [][]byte) ([]json.RawMessage, []string, error) {
	out, err := b.do(ctx, c, request{Op: "process_docs", Columns: columns}, rows)
	if err != nil {
		return nil, nil, err
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("task %s: process_docs hook %s: protocol: no column header", c.Task, c.Hook)
	}
	var hdr struct{ Columns []string }
	if err := json.Unmarshal(out[0], &hdr); err != nil {
		return nil, nil, fmt.Errorf("task %s: process_docs hook %s: protocol: %w", c.Task, c.Hook, err)
	}
	return out[1:], hdr.Columns, nil
}

// DocTo runs a doc_to_text, doc_to_target or doc_to_choice hook (c.Kind)
// on each doc and returns what it returned for each.
func (b *Bridge) DocTo(ctx context.Context, c Call, docs [][]byte) ([]json.RawMessage, error) {
	return b.do(ctx, c, request{Op: "doc_to"}, docs)
}

// FilterItem is one doc's responses (a list, or one value once a step has
// reduced them) and the doc, as lm-eval's Filter.apply receives them.
type FilterItem struct {
	Resps json.RawMessage `json:"resps"`
	Doc   json.RawMessage `json:"doc"`
}

// Filter instantiates a filter class with its YAML keyword arguments and
// applies it to the items (lm-eval passes a task's whole list at once; a
// batch here is a slice of it).
func (b *Bridge) Filter(ctx context.Context, c Call, args map[string]any, items []FilterItem) ([]json.RawMessage, error) {
	a, err := argsJSON(c, args)
	if err != nil {
		return nil, err
	}
	return b.filter(ctx, c, request{Op: "filter", Args: a}, items)
}

// RegistryFilter runs a filter lm-eval registers by name (c.Hook.Function;
// no file), from the interpreter's lm-eval, with its YAML arguments.
func (b *Bridge) RegistryFilter(ctx context.Context, c Call, args map[string]any, items []FilterItem) ([]json.RawMessage, error) {
	a, err := argsJSON(c, args)
	if err != nil {
		return nil, err
	}
	return b.filter(ctx, c, request{Op: "registry_filter", Args: a}, items)
}

// CustomFilter runs lm-eval's "custom" filter: its filter_fn hook called
// with the items' responses and docs.
func (b *Bridge) CustomFilter(ctx context.Context, c Call, items []FilterItem) ([]json.RawMessage, error) {
	return b.filter(ctx, c, request{Op: "custom_filter"}, items)
}

func (b *Bridge) filter(ctx context.Context, c Call, req request, items []FilterItem) ([]json.RawMessage, error) {
	lines := linesOf(items, func(it FilterItem) []byte { return rawObject("resps", it.Resps, "doc", it.Doc) })
	out, err := b.do(ctx, c, req, lines)
	if err == nil && len(out) != len(items) {
		return nil, fmt.Errorf("task %s: filter %s returned %d values for %d docs", c.Task, c.Hook, len(out), len(items))
	}
	return out, err
}

// ResultsItem is one doc and its filtered results (lm-eval's `results`:
// a list with the filtered response).
type ResultsItem struct {
	Doc     json.RawMessage `json:"doc"`
	Results json.RawMessage `json:"results"`
}

// ProcessResults runs a process_results hook per doc; each answer is the
// dict of metric values it returned.
func (b *Bridge) ProcessResults(ctx context.Context, c Call, items []ResultsItem) ([]json.RawMessage, error) {
	lines := linesOf(items, func(it ResultsItem) []byte { return rawObject("doc", it.Doc, "results", it.Results) })
	return b.do(ctx, c, request{Op: "process_results"}, lines)
}

// MetricItem is one doc's gold and filtered result.
type MetricItem struct {
	Gold   json.RawMessage `json:"gold"`
	Result json.RawMessage `json:"result"`
}

// Metric calls a metric function per doc as lm-eval's generate_until
// scoring does: fn(references=[gold], predictions=[result], **args), and on
// TypeError fn([gold, result]).
func (b *Bridge) Metric(ctx context.Context, c Call, args map[string]any, items []MetricItem) ([]json.RawMessage, error) {
	a, err := argsJSON(c, args)
	if err != nil {
		return nil, err
	}
	lines := linesOf(items, func(it MetricItem) []byte { return rawObject("gold", it.Gold, "result", it.Result) })
	return b.do(ctx, c, request{Op: "metric", Args: a}, lines)
}

// argsJSON is a hook's keyword arguments from the YAML, as Python's json
// writes them (a *pyjson.Dict value keeps its key order).
func argsJSON(c Call, args map[string]any) (json.RawMessage, error) {
	if args == nil {
		return json.RawMessage("{}"), nil
	}
	a, err := pyjson.Dumps(args)
	if err != nil {
		return nil, fmt.Errorf("task %s: %s %s: arguments: %w", c.Task, c.Kind, c.Hook, err)
	}
	return a, nil
}

func linesOf[T any](items []T, line func(T) []byte) [][]byte {
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = line(it)
	}
	return out
}

// Aggregate calls an aggregation function on all per-doc values of a metric.
func (b *Bridge) Aggregate(ctx context.Context, c Call, values [][]byte) (json.RawMessage, error) {
	out, err := b.do(ctx, c, request{Op: "aggregation"}, values)
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, fmt.Errorf("task %s: aggregation %s: protocol: %d values", c.Task, c.Hook, len(out))
	}
	return out[0], nil
}

// Check reports, per hook, whether its file exists and defines the name at
// the top level (a def, class, assignment or import) as what Hook.Want asks
// for, reading the source with Python's ast module: nothing in the file
// runs. The answer is nil for a hook that is there, else why not.
func (b *Bridge) Check(ctx context.Context, hooks []Hook) ([]error, error) {
	lines, err := marshalAll(hooks)
	if err != nil {
		return nil, err
	}
	out, err := b.do(ctx, Call{Task: "-", Kind: "check"}, request{Op: "check", Hook: &Hook{}}, lines)
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(hooks))
	for i, o := range out {
		var why *string
		if err := json.Unmarshal(o, &why); err != nil {
			return nil, fmt.Errorf("python hooks: check: protocol: %w", err)
		}
		if why != nil {
			errs[i] = fmt.Errorf("python hook %s: %s", hooks[i], *why)
		}
	}
	return errs, nil
}

// rawObject writes {"k1": v1, "k2": v2} from JSON values as Python's json
// reads them (NaN and Infinity included, which encoding/json would refuse).
func rawObject(k1 string, v1 json.RawMessage, k2 string, v2 json.RawMessage) []byte {
	b := make([]byte, 0, len(v1)+len(v2)+len(k1)+len(k2)+12)
	b = append(append(append(b, `{"`...), k1...), `": `...)
	b = append(append(append(append(b, v1...), `, "`...), k2...), `": `...)
	return append(append(b, v2...), '}')
}

func marshalAll[T any](items []T) ([][]byte, error) {
	out := make([][]byte, len(items))
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("python hooks: item %d: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}
