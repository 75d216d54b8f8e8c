package datasets

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type nestedSpan struct {
	Text  string `parquet:"text"`
	Start int32  `parquet:"answer_start"`
}

// nestedRow's struct fields are not in name order, as in SQuAD's answers
// {text, answer_start}: a reader that sorts them shows.
type nestedRow struct {
	Question string       `parquet:"question"`
	Meta     nestedSpan   `parquet:"meta"`
	Spans    []nestedSpan `parquet:"spans,list"`
	Tags     []string     `parquet:"tags,list"`
	Answer   string       `parquet:"answer"`
}

// WriteNestedParquet writes rows whose struct columns' fields are in schema
// order text, answer_start (parquet-go keeps a Go struct's field order).
func writeNestedParquet(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w := parquet.NewGenericWriter[nestedRow](f)
	_, err = w.Write([]nestedRow{{Question: "Q", Meta: nestedSpan{"t", 3}, Spans: []nestedSpan{{"x", 1}, {"y", 2}}, Tags: []string{"p"}, Answer: "#### 4"}})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
}

// TestNestedFieldOrderFromParquet: a struct column's fields keep the file's
// order all the way to the doc's JSON, as datasets' rows (Python dicts in
// Arrow schema order) reach lm-eval's json.dumps.
func TestNestedFieldOrderFromParquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.parquet")
	writeNestedParquet(t, path)
	ds, err := LoadDocs(path)
	require.NoError(t, err)
	p := ds.Problems[0]
	want := Fields{{Name: "question"}, {Name: "meta", Sub: FieldsOf("text", "answer_start")},
		{Name: "spans", Sub: FieldsOf("text", "answer_start")}, {Name: "tags"}, {Name: "answer"}}
	assert.Equal(t, want, p.Columns)
	b, err := EncodeDoc(p.Doc, p.Columns)
	require.NoError(t, err)
	assert.Equal(t, `{"question":"Q","meta":{"text":"t","answer_start":3},"spans":[{"text":"x","answer_start":1},{"text":"y","answer_start":2}],"tags":["p"],"answer":"#### 4"}`, string(b))

	// problems.jsonl keeps the order as doc_columns; flat fields stay names.
	j, err := json.Marshal(p.Columns)
	require.NoError(t, err)
	assert.Equal(t, `["question",{"meta":["text","answer_start"]},{"spans":["text","answer_start"]},"tags","answer"]`, string(j))
	var back Fields
	require.NoError(t, json.Unmarshal(j, &back))
	assert.Equal(t, want, back)
	require.NoError(t, json.Unmarshal([]byte(`["b","a"]`), &back), "doc_columns of earlier runs")
	assert.Equal(t, FieldsOf("b", "a"), back)
	assert.Error(t, json.Unmarshal([]byte(`[{"a":[],"b":[]}]`), &back))
}

// The other formats: a JSONL file's first line, nested objects and lists of
// objects included; keys a doc has beyond them come last, sorted.
func TestNestedFieldOrderOtherFormats(t *testing.T) {
	rows, err := parseJSONLDocs("d.jsonl", []byte(`{"z": {"b": 1, "a": [{"y": 1, "x": 2}]}, "c": [1]}`+"\n"), nil)
	require.NoError(t, err)
	want := Fields{{Name: "z", Sub: Fields{{Name: "b"}, {Name: "a", Sub: FieldsOf("y", "x")}}}, {Name: "c"}}
	assert.Equal(t, want, rows.fields)
	d := Doc{"z": map[string]any{"b": int64(1), "new": true, "a": []any{map[string]any{"x": int64(2), "y": int64(1)}}}, "c": []any{}, "extra": nil}
	b, err := EncodeDoc(d, rows.fields)
	require.NoError(t, err)
	assert.Equal(t, `{"z":{"b":1,"a":[{"y":1,"x":2}],"new":true},"c":[],"extra":null}`, string(b))
	b, err = EncodeDoc(d, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"c":[],"extra":null,"z":{"a":[{"x":2,"y":1}],"b":1,"new":true}}`, string(b), "no order known: sorted")
}

func TestArrowFieldsNested(t *testing.T) {
	span := arrow.StructOf(arrow.Field{Name: "text", Type: arrow.BinaryTypes.String}, arrow.Field{Name: "answer_start", Type: arrow.PrimitiveTypes.Int32})
	got := arrowFields([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "answers", Type: span},
		{Name: "spans", Type: arrow.ListOf(span)}, {Name: "tags", Type: arrow.LargeListOf(arrow.BinaryTypes.String)}})
	assert.Equal(t, Fields{{Name: "id"}, {Name: "answers", Sub: FieldsOf("text", "answer_start")},
		{Name: "spans", Sub: FieldsOf("text", "answer_start")}, {Name: "tags"}}, got)
}
