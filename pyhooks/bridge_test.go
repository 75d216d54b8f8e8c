package pyhooks

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/pythontest"
)

func testBridge(t testing.TB, opts Options) *Bridge {
	t.Helper()
	opts.Python = pythontest.Python(t)
	b := New(opts)
	t.Cleanup(func() { require.NoError(t, b.Close()) })
	return b
}

func testHook(t testing.TB, fn string) Hook {
	return Hook{File: mustAbs(t, filepath.Join("testdata", "hooks", "utils.py")), Function: fn}
}

func mustAbs(t testing.TB, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	require.NoError(t, err)
	return abs
}

func lines(t *testing.T, vs ...any) [][]byte {
	t.Helper()
	out := make([][]byte, len(vs))
	for i, v := range vs {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out[i] = b
	}
	return out
}

func texts(raw []json.RawMessage) []string {
	out := make([]string, len(raw))
	for i, r := range raw {
		out[i] = string(r)
	}
	return out
}

var docs = []map[string]any{
	{"q": " one ", "n": 1, "choices": []string{"a", "b"}, "answer": "yes"},
	{"q": "two", "n": 2, "choices": []string{"c"}, "answer": "no"},
	{"q": "three", "n": 3, "choices": []string{}, "answer": "maybe"},
}

func docLines(t *testing.T) [][]byte {
	vs := make([]any, len(docs))
	for i, d := range docs {
		vs[i] = d
	}
	return lines(t, vs...)
}

func TestInterpreter(t *testing.T) {
	b := testBridge(t, Options{})
	in, err := b.Interpreter(context.Background())
	require.NoError(t, err)
	assert.Regexp(t, `^3\.\d+\.\d+`, in.Version)
	assert.NotEmpty(t, in.Executable)
}

func TestDocTo(t *testing.T) {
	b := testBridge(t, Options{})
	ctx := context.Background()
	call := func(fn string) []string {
		out, err := b.DocTo(ctx, Call{Task: "t", Kind: fn, Hook: testHook(t, fn), Docs: []int{0, 1, 2}}, docLines(t))
		require.NoError(t, err)
		return texts(out)
	}
	assert.Equal(t, []string{`"Q:  one "`, `"Q: two"`, `"Q: three"`}, call("doc_to_text"))
	assert.Equal(t, []string{`["A", "B"]`, `["C"]`, `[]`}, call("doc_to_choice"))
	assert.Equal(t, []string{`1`, `2`, `0`}, call("doc_to_target"))
}

// The datasets stand-in (datasets is not installed with Debian's python3):
// filter keeps rows in order, map keeps the input columns first and appends
// new ones, select reorders.
func TestProcessDocsStandIn(t *testing.T) {
	b := testBridge(t, Options{})
	ctx := context.Background()
	in, err := b.Interpreter(ctx)
	require.NoError(t, err)
	if in.Datasets != "" {
		t.Skipf("datasets %s is installed: process_docs gets a real datasets.Dataset", in.Datasets)
	}
	rows, cols, err := b.ProcessDocs(ctx, Call{Task: "t", Kind: "process_docs", Hook: testHook(t, "process_docs")},
		[]string{"q", "n", "choices", "answer"}, docLines(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"q", "n", "choices", "answer", "question", "n2"}, cols)
	assert.Equal(t, []string{
		`{"q": "three", "n": 3, "choices": [], "answer": "maybe", "question": "three?", "n2": 6}`,
		`{"q": " one ", "n": 1, "choices": ["a", "b"], "answer": "yes", "question": "one?", "n2": 2}`,
	}, texts(rows))

	rows, cols, err = b.ProcessDocs(ctx, Call{Task: "t", Kind: "process_docs", Hook: testHook(t, "process_docs_batched")},
		[]string{"q", "n", "choices", "answer"}, docLines(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"q", "choices", "answer", "i"}, cols)
	assert.Equal(t, `{"q": "two", "choices": ["c"], "answer": "no", "i": 1}`, string(rows[1]))
}

func TestFilterClassWithArguments(t *testing.T) {
	b := testBridge(t, Options{})
	items := []FilterItem{
		{Resps: json.RawMessage(`["Paris is big", "Lyon"]`), Doc: json.RawMessage(`{"n": 1}`)},
		{Resps: json.RawMessage(`[""]`), Doc: json.RawMessage(`{"n": NaN}`)},
	}
	out, err := b.Filter(context.Background(), Call{Task: "t", Kind: "filter", Hook: testHook(t, "FirstWordFilter")},
		map[string]any{"lowercase": true, "fallback": "NONE"}, items)
	require.NoError(t, err)
	assert.Equal(t, []string{`["paris", "lyon"]`, `["none"]`}, texts(out))

	// A filter fails for its batch, not for one doc: the batch is named.
	_, err = b.Filter(context.Background(), Call{Task: "t", Kind: "filter", Hook: testHook(t, "FirstWordFilter"), Docs: []int{4, 5}},
		map[string]any{"no_such_argument": 1}, items)
	assert.ErrorContains(t, err, "task t: filter hook utils.py:FirstWordFilter on docs 4-5 raised TypeError")
}

func TestProcessResultsMetricAggregation(t *testing.T) {
	b := testBridge(t, Options{})
	ctx := context.Background()
	out, err := b.ProcessResults(ctx, Call{Task: "t", Kind: "process_results", Hook: testHook(t, "process_results")},
		[]ResultsItem{{Doc: json.RawMessage(`{"answer": "yes"}`), Results: json.RawMessage(`["yes no yes"]`)}})
	require.NoError(t, err)
	assert.Equal(t, []string{`{"acc": 0, "per_word": [true, false, true], "nan": NaN}`}, texts(out))

	items := []MetricItem{{Gold: json.RawMessage(`"Yes"`), Result: json.RawMessage(`"yes"`)}}
	out, err = b.Metric(ctx, Call{Task: "t", Kind: "metric", Hook: testHook(t, "exact_metric")}, map[string]any{"ignore_case": true}, items)
	require.NoError(t, err)
	assert.Equal(t, []string{`1.0`}, texts(out))
	// A passthrough metric (one positional argument) gets [gold, result].
	out, err = b.Metric(ctx, Call{Task: "t", Kind: "metric", Hook: testHook(t, "positional_metric")}, nil, items)
	require.NoError(t, err)
	assert.Equal(t, []string{`["Yes", "yes"]`}, texts(out))

	agg, err := b.Aggregate(ctx, Call{Task: "t", Kind: "aggregation", Hook: testHook(t, "agg_flat_mean")}, lines(t, []bool{true, false}, []bool{true}))
	require.NoError(t, err)
	assert.Equal(t, "0.6666666666666666", string(agg))
}

func TestCheckReadsWithoutRunning(t *testing.T) {
	b := testBridge(t, Options{})
	want := func(h Hook, kind string) Hook { h.Want = kind; return h }
	hooks := []Hook{want(testHook(t, "process_docs"), "function"), want(testHook(t, "FirstWordFilter"), "class"), testHook(t, "NAMED"), testHook(t, "os"),
		testHook(t, "nope"), {File: "/nonexistent/utils.py", Function: "f"},
		want(testHook(t, "doc_to_text"), "class"), want(testHook(t, "FirstWordFilter"), "function")}
	errs, err := b.Check(context.Background(), hooks)
	require.NoError(t, err)
	for i := range 4 {
		assert.NoError(t, errs[i], hooks[i].Function)
	}
	assert.ErrorContains(t, errs[4], "utils.py defines no nope")
	assert.ErrorContains(t, errs[5], "FileNotFoundError")
	assert.ErrorContains(t, errs[6], "doc_to_text is a function; a filter step names a class")
	assert.ErrorContains(t, errs[7], "FirstWordFilter is a class; a function is expected here")
}

// A hook's exception names the task, the hook, the doc (by its id, not its
// place in the batch) and the traceback's last lines; the interpreter lives
// on and answers the next call.
func TestFaultHookRaises(t *testing.T) {
	b := testBridge(t, Options{})
	ctx := context.Background()
	_, err := b.DocTo(ctx, Call{Task: "mytask", Kind: "doc_to_text", Hook: testHook(t, "raises"), Docs: []int{10, 11, 12}}, docLines(t))
	var he *HookError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 12, he.DocID)
	msg := err.Error()
	for _, want := range []string{"task mytask", "doc_to_text hook utils.py:raises", "on doc 12", "KeyError", `return {"a": 1}["missing"]`} {
		assert.Contains(t, msg, want)
	}
	out, err := b.DocTo(ctx, Call{Task: "mytask", Kind: "doc_to_text", Hook: testHook(t, "doc_to_text")}, docLines(t)[:1])
	require.NoError(t, err)
	assert.Equal(t, []string{`"Q:  one "`}, texts(out))
}

// A hook that never returns is stopped at the time bound; the next call
// starts a fresh interpreter.
func TestFaultHookHangs(t *testing.T) {
	b := testBridge(t, Options{CallTimeout: 2 * time.Second})
	ctx := context.Background()
	start := time.Now()
	_, err := b.DocTo(ctx, Call{Task: "slow", Kind: "doc_to_text", Hook: testHook(t, "hangs"), Docs: []int{0}}, docLines(t)[:1])
	require.Error(t, err)
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Contains(t, err.Error(), "task slow: doc_to_text hook utils.py:hangs (doc 0)")
	assert.Contains(t, err.Error(), "no answer within 2s")
	out, err := b.DocTo(ctx, Call{Task: "slow", Kind: "doc_to_text", Hook: testHook(t, "doc_to_text")}, docLines(t)[:1])
	require.NoError(t, err)
	assert.Len(t, out, 1)
}

// Whatever a hook prints (print, sys.stdout, the raw file descriptor 1)
// goes to stderr, never into the protocol.
func TestFaultHookPrintsToStdout(t *testing.T) {
	b := testBridge(t, Options{})
	out, err := b.DocTo(context.Background(), Call{Task: "t", Kind: "doc_to_text", Hook: testHook(t, "prints")}, docLines(t))
	require.NoError(t, err)
	assert.Equal(t, []string{`"printed"`, `"printed"`, `"printed"`}, texts(out))
	// stderr is copied by its own goroutine: it may trail the reply.
	assert.Eventually(t, func() bool {
		return strings.Contains(string(b.proc.stderr.Bytes()), "a hook printing to stdout 3")
	}, 10*time.Second, 10*time.Millisecond)
}

// Allocation past the memory bound is a MemoryError in the hook, reported
// like any exception; the interpreter survives it.
func TestFaultHookAllocatesWithoutBound(t *testing.T) {
	b := testBridge(t, Options{MemoryLimit: 1 << 30})
	ctx := context.Background()
	_, err := b.DocTo(ctx, Call{Task: "t", Kind: "doc_to_text", Hook: testHook(t, "allocates"), Docs: []int{4}}, docLines(t)[:1])
	var he *HookError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, "MemoryError", he.Type)
	assert.Contains(t, err.Error(), "on doc 4")
	_, err = b.DocTo(ctx, Call{Task: "t", Kind: "doc_to_text", Hook: testHook(t, "doc_to_text")}, docLines(t)[:1])
	require.NoError(t, err)
}

// An interpreter that exits or is killed mid-call is an error saying how it
// ended, with the task, hook and docs; the next call starts a new one.
func TestFaultHookKillsInterpreter(t *testing.T) {
	for _, c := range []struct{ fn, how string }{{"dies", "exit status 3"}, {"kills_itself", "signal: killed"}} {
		t.Run(c.fn, func(t *testing.T) {
			b := testBridge(t, Options{})
			ctx := context.Background()
			_, err := b.DocTo(ctx, Call{Task: "t", Kind: "doc_to_text", Hook: testHook(t, c.fn), Docs: []int{7, 8}}, docLines(t)[:2])
			require.Error(t, err)
			assert.Contains(t, err.Error(), "task t: doc_to_text hook utils.py:"+c.fn+" (docs 7-8)")
			assert.Contains(t, err.Error(), c.how)
			_, err = b.DocTo(ctx, Call{Task: "t", Kind: "doc_to_text", Hook: testHook(t, "doc_to_text")}, docLines(t)[:1])
			require.NoError(t, err)
		})
	}
}

func TestFaultHookExitsOrReturnsJunk(t *testing.T) {
	b := testBridge(t, Options{})
	ctx := context.Background()
	_, err := b.DocTo(ctx, Call{Task: "t", Kind: "doc_to_text", Hook: testHook(t, "exits")}, docLines(t)[:1])
	assert.ErrorContains(t, err, "SystemExit: a hook called sys.exit")
	_, err = b.DocTo(ctx, Call{Task: "t", Kind: "doc_to_text", Hook: testHook(t, "unserialisable")}, docLines(t)[:1])
	assert.ErrorContains(t, err, "a hook returned object, which has no JSON form")
	_, err = b.DocTo(ctx, Call{Task: "t", Kind: "doc_to_text", Hook: testHook(t, "no_such_function")}, docLines(t)[:1])
	assert.ErrorContains(t, err, "defines no no_such_function")
	_, err = b.DocTo(ctx, Call{Task: "t", Kind: "doc_to_text", Hook: Hook{File: "/nonexistent/utils.py", Function: "f"}}, docLines(t)[:1])
	assert.ErrorContains(t, err, "FileNotFoundError")
}

// Without lm-eval in the interpreter, a registry filter is an error that
// says so, at the check and at the call.
func TestRegistryFilterWithoutLMEval(t *testing.T) {
	b := testBridge(t, Options{})
	ctx := context.Background()
	in, err := b.Interpreter(ctx)
	require.NoError(t, err)
	if in.LMEval != "" {
		t.Skipf("lm-eval %s is installed", in.LMEval)
	}
	errs, err := b.Check(ctx, []Hook{{Function: "regex_pos", Want: "registry_filter"}})
	require.NoError(t, err)
	assert.ErrorContains(t, errs[0], "filter regex_pos is lm-eval's: lm-eval is not importable in this interpreter")
	_, err = b.RegistryFilter(ctx, Call{Task: "t", Kind: "filter", Hook: Hook{Function: "regex_pos"}, Docs: []int{0}}, nil,
		[]FilterItem{{Resps: json.RawMessage(`["a"]`), Doc: json.RawMessage(`{}`)}})
	assert.ErrorContains(t, err, "task t: filter hook lm-eval's regex_pos on doc 0 raised ImportError")
}

func TestMissingInterpreter(t *testing.T) {
	b := New(Options{Python: "/nonexistent/python3"})
	_, err := b.Interpreter(context.Background())
	assert.ErrorContains(t, err, `interpreter "/nonexistent/python3" (--python)`)
	require.NoError(t, b.Close())
}

func TestHookSHA256(t *testing.T) {
	h := testHook(t, "x")
	sum, err := h.SHA256()
	require.NoError(t, err)
	assert.Len(t, sum, 64)
	_, err = Hook{File: "/nonexistent.py"}.SHA256()
	assert.True(t, strings.Contains(err.Error(), "nonexistent.py"))
}
