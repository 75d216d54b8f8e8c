package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// writeHubParquet writes GSM8K-style rows as a hub-cache parquet file.
func writeHubParquet(t *testing.T, path string, questions ...string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	f, err := os.Create(path)
	require.NoError(t, err)
	var ps []Problem
	for _, q := range questions {
		ps = append(ps, Problem{Question: q, Answer: "w\n#### 1"})
	}
	require.NoError(t, WriteParquet(f, ps, nil))
	require.NoError(t, f.Close())
}

// writeDatasetsArrow writes an Arrow IPC stream as the datasets library caches
// a split: a string, a list<string>, an int64 (ClassLabel) and a struct column.
func writeDatasetsArrow(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "question", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "choices", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "answer", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "meta", Type: arrow.StructOf(arrow.Field{Name: "src", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"What is 2+2?", "Capital of France?"}, nil)
	lb := b.Field(1).(*array.ListBuilder)
	vb := lb.ValueBuilder().(*array.StringBuilder)
	lb.Append(true)
	vb.AppendValues([]string{"3", "4"}, nil)
	lb.Append(true)
	vb.AppendValues([]string{"Paris", "Rome"}, nil)
	b.Field(2).(*array.Int64Builder).AppendValues([]int64{1, 0}, nil)
	sb := b.Field(3).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.StringBuilder).Append("x")
	sb.AppendNull()
	rec := b.NewRecord()
	defer rec.Release()
	f, err := os.Create(path)
	require.NoError(t, err)
	w := ipc.NewWriter(f, ipc.WithSchema(schema))
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
}

func writeTaskFile(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "task.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func taskFromFile(t *testing.T, path string) *Task {
	t.Helper()
	ix, err := NewIndex()
	require.NoError(t, err)
	names, err := ix.AddFile(path)
	require.NoError(t, err)
	task, err := ix.Task(names[0])
	require.NoError(t, err)
	return task
}

// TestHubCacheResolution builds a hub cache with two snapshots and checks that
// refs/main's revision is read, then the newest when refs/main is gone.
func TestHubCacheResolution(t *testing.T) {
	hub := t.TempDir()
	repo := filepath.Join(hub, "datasets--acme--math")
	writeHubParquet(t, filepath.Join(repo, "snapshots", "aaa", "main", "test-00000-of-00001.parquet"), "from aaa")
	writeHubParquet(t, filepath.Join(repo, "snapshots", "bbb", "main", "test-00000-of-00001.parquet"), "from bbb")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "refs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("aaa\n"), 0o644))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(repo, "snapshots", "aaa"), old, old))

	task := taskFromFile(t, writeTaskFile(t, t.TempDir(), "task: acme_math\ndataset_path: acme/math\ndataset_name: main\ntest_split: test\ndoc_to_text: \"Q: {{question}}\"\ndoc_to_target: answer\n"))
	src := DataSource{HubCaches: []string{filepath.Join(hub, "missing"), hub}}
	td, err := LoadTaskData(task, src, 0)
	require.NoError(t, err)
	assert.Equal(t, "from aaa", td.Docs.Problems[0].Doc["question"], "refs/main wins over the newer snapshot")

	require.NoError(t, os.Remove(filepath.Join(repo, "refs", "main")))
	td, err = LoadTaskData(task, src, 0)
	require.NoError(t, err)
	assert.Equal(t, "from bbb", td.Docs.Problems[0].Doc["question"], "without refs/main, the newest snapshot")
}

// TestConvertedParquetLayout reads the hub's refs/convert/parquet layout
// (<config>/<split>/0000.parquet), as in ../shared/tasks' GPQA copy.
func TestConvertedParquetLayout(t *testing.T) {
	hub := t.TempDir()
	writeHubParquet(t, filepath.Join(hub, "datasets--acme--conv", "snapshots", "r1", "cfg", "train", "0000.parquet"), "converted")
	task := taskFromFile(t, writeTaskFile(t, t.TempDir(), "task: conv\ndataset_path: acme/conv\ndataset_name: cfg\nvalidation_split: train\ndoc_to_text: question\ndoc_to_target: answer\n"))
	td, err := LoadTaskData(task, DataSource{HubCaches: []string{hub}}, 0)
	require.NoError(t, err)
	assert.Equal(t, "converted", td.Docs.Problems[0].Doc["question"])
}

// TestDatasetsCacheResolution reads a datasets-library Arrow cache entry,
// keeping list, int and struct columns for the templates.
func TestDatasetsCacheResolution(t *testing.T) {
	cache := t.TempDir()
	writeDatasetsArrow(t, filepath.Join(cache, "acme___quiz", "default", "0.0.0", "f00d", "quiz-test.arrow"))
	task := taskFromFile(t, writeTaskFile(t, t.TempDir(), "task: quiz\ndataset_path: acme/quiz\ntest_split: test\n"+
		"doc_to_text: \"{{question}} (A) {{choices[0]}} (B) {{choices[1]}}\"\ndoc_to_target: \"{{['(A)', '(B)'][answer]}}\"\n"))
	td, err := LoadTaskData(task, DataSource{HubCaches: []string{t.TempDir()}, DatasetsCaches: []string{cache}}, 0)
	require.NoError(t, err)
	require.Len(t, td.Docs.Problems, 2)
	d := td.Docs.Problems[0].Doc
	assert.Equal(t, map[string]any{"src": "x"}, d["meta"])
	assert.Nil(t, td.Docs.Problems[1].Doc["meta"], "a NULL struct stays nil")
	text, err := task.Text(d)
	require.NoError(t, err)
	assert.Equal(t, "What is 2+2? (A) 3 (B) 4", text)
	target, err := task.Target(d)
	require.NoError(t, err)
	assert.Equal(t, "(B)", target)
}

func TestDataMissSaysWhereItLooked(t *testing.T) {
	hub, cache := t.TempDir(), t.TempDir()
	task := taskFromFile(t, writeTaskFile(t, t.TempDir(), "task: nowhere\ndataset_path: acme/nowhere\ndataset_name: cfg\ntest_split: test\ndoc_to_text: q\n"))
	_, err := LoadTaskData(task, DataSource{HubCaches: []string{hub}, DatasetsCaches: []string{cache}}, 0)
	require.ErrorIs(t, err, ErrDataNotFound)
	assert.ErrorContains(t, err, filepath.Join(hub, "datasets--acme--nowhere", "snapshots", "*"))
	assert.ErrorContains(t, err, filepath.Join(cache, "acme___nowhere", "cfg", "*", "*", "*-test.arrow"))
	assert.ErrorContains(t, err, "--dataset")
}

// TestDataFilesAndLocalJSON reads dataset_kwargs.data_files (relative to the
// task file) for dataset_path: json, every key of each object kept.
func TestDataFilesAndLocalJSON(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "eval.jsonl"), []byte("{\"q\": \"one\", \"n\": 3, \"tags\": [\"a\"]}\n{\"q\": \"two\", \"n\": 2.5, \"tags\": []}\n"), 0o644))
	task := taskFromFile(t, writeTaskFile(t, dir, "task: local\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: eval.jsonl\ntest_split: test\ndoc_to_text: \"{{q}}:{{n}}\"\ndoc_to_target: \"{{tags|length}}\"\n"))
	td, err := LoadTaskData(task, DataSource{}, 0)
	require.NoError(t, err)
	require.Len(t, td.Docs.Problems, 2)
	assert.Equal(t, int64(3), td.Docs.Problems[0].Doc["n"])
	text, err := task.Text(td.Docs.Problems[0].Doc)
	require.NoError(t, err)
	assert.Equal(t, "one:3", text)
	target, err := task.Target(td.Docs.Problems[1].Doc)
	require.NoError(t, err)
	assert.Equal(t, "0", target)
}

func TestGenericDocsRefuseHugeFields(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("9", MaxFieldBytes+1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.jsonl"), []byte(`{"q": "x", "meta": {"notes": ["ok", "`+big+`"]}}`+"\n"), 0o644))
	_, err := LoadDocs(filepath.Join(dir, "d.jsonl"))
	require.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "row 0: meta.notes[1] of 1048577 bytes")
}

// TestArrowLengthBombRefused: a stream whose first message claims 2 GiB of
// metadata is refused before arrow-go would allocate it.
func TestArrowLengthBombRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bomb-test.arrow")
	require.NoError(t, os.WriteFile(p, []byte("\xff\xff\xff\xff\xff\xff\xff\x7fxxxxxxxx"), 0o644))
	_, err := LoadDocs(p)
	assert.ErrorContains(t, err, "first message claims 2147483647 bytes of a 16-byte file")
}

func TestCSVDocsInferTypes(t *testing.T) {
	csvText := "q,n,x,ok,note\n\"a, quoted\",1,1.5,True,\n\"b\",2,,False,hi\n"
	docs, err := parseCSVDocs("t.csv", []byte(csvText))
	require.NoError(t, err)
	assert.Equal(t, Doc{"q": "a, quoted", "n": int64(1), "x": 1.5, "ok": true, "note": nil}, docs.docs[0])
	assert.Equal(t, Doc{"q": "b", "n": int64(2), "x": nil, "ok": false, "note": "hi"}, docs.docs[1])
	assert.Equal(t, []string{"q", "n", "x", "ok", "note"}, docs.fields.Names())
	_, err = parseCSVDocs("t.csv", []byte("a,b\n1\n"))
	assert.ErrorContains(t, err, "wrong number of fields")
}

// TestGPQACSVReads loads the GPQA CSV of ../shared/tasks (pandas-written, as the
// hub's main branch holds it): the task itself is refused for its Python
// process_docs, but its data reads with the same columns as the Parquet copy.
func TestGPQACSVReads(t *testing.T) {
	csvDocs, err := LoadDocs(sharedtest.Path(t, "tasks/data/Idavidrein/gpqa/gpqa_main.csv"))
	require.NoError(t, err)
	pq, err := LoadDocs(sharedtest.Path(t, "tasks/data/Idavidrein/gpqa/gpqa_main/train/0000.parquet"))
	require.NoError(t, err)
	require.Len(t, csvDocs.Problems, len(pq.Problems))
	for i := range pq.Problems {
		for _, col := range []string{"Question", "Correct Answer", "Incorrect Answer 1"} {
			assert.Equal(t, pq.Problems[i].Doc[col], csvDocs.Problems[i].Doc[col], "row %d %s", i, col)
		}
	}
}
