package datasets

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type qa struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// referenceRows reads a JSONL file with the plainest possible code, as the
// independent truth the loaders are compared with.
func referenceRows(t testing.TB, path string) []qa {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []qa
	for sc.Scan() {
		var r qa
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	return out
}

func assertSameRows(t *testing.T, want []qa, got []Problem) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		if want[i].Question != got[i].Question || want[i].Answer != got[i].Answer {
			t.Fatalf("row %d differs:\nwant %+v\ngot  %q / %q", i, want[i], got[i].Question, got[i].Answer)
		}
		require.Equal(t, i, got[i].Index)
	}
}

func TestLoadGoodFiles(t *testing.T) {
	root := sharedtest.Path(t, "data/gsm8k")
	test := referenceRows(t, filepath.Join(root, "test.jsonl"))
	train := referenceRows(t, filepath.Join(root, "train.jsonl"))
	require.Len(t, test, 1319)
	require.Len(t, train, 7473)
	tests := []struct {
		pattern   string
		want      []qa
		wantFiles int
	}{
		{"test.jsonl", test, 1},
		{"train.jsonl", train, 1},
		{"main/test-00000-of-00001.parquet", test, 1},
		{"main/train-00000-of-00001.parquet", train, 1},
		{"variants/test-zstd-rg256.parquet", test, 1},
		{"sample/test-50.parquet", test[:50], 1},
		{"sample/test-50.jsonl", test[:50], 1},
		{"sharded/test-*-of-00003.parquet", test, 3},
		{"main/test-*.parquet", test, 1},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			ds, err := Load(filepath.Join(root, tt.pattern))
			require.NoError(t, err)
			assert.Len(t, ds.Files, tt.wantFiles)
			assertSameRows(t, tt.want, ds.Problems)
		})
	}
}

func TestLoadShardedDocIDs(t *testing.T) {
	ds, err := Load(sharedtest.Path(t, "data/gsm8k/sharded") + "/test-*-of-00003.parquet")
	require.NoError(t, err)
	require.Len(t, ds.Files, 3)
	assert.Equal(t, []int{440, 440, 439}, []int{ds.Files[0].Rows, ds.Files[1].Rows, ds.Files[2].Rows})
	p := ds.Problems[440] // first row of the second shard
	assert.Equal(t, 440, p.Index)
	assert.Equal(t, "440", p.ID)
	assert.Equal(t, 0, p.Row)
	assert.Equal(t, "test-00001-of-00003.parquet", filepath.Base(p.Source))
}

func TestTargets(t *testing.T) {
	ds, err := Load(sharedtest.Path(t, "data/gsm8k/test.jsonl"))
	require.NoError(t, err)
	ps := ds.Problems
	assert.Equal(t, "18", ps[0].Target) // "...#### 18"
	assert.Equal(t, "3", ps[1].Target)
	assert.Equal(t, "70000", ps[2].Target)
	assert.Empty(t, InvalidTargets(ps))
	commas, negatives := 0, 0
	for _, p := range ps {
		for _, c := range p.Target {
			if c == ',' {
				commas++
				break
			}
		}
		if p.Target[0] == '-' {
			negatives++
		}
	}
	// GSM8K.md: 14 test targets contain thousands commas, 2 are negative.
	assert.Equal(t, 14, commas)
	assert.Equal(t, 2, negatives)
}

func TestFinalAnswer(t *testing.T) {
	tests := []struct {
		answer string
		want   string
		ok     bool
	}{
		{"a\n#### 18", "18", true},
		{"a\n#### 2,125", "2,125", true},
		{"a\n#### -3", "-3", true},
		{"a #### 1\n#### 2 ", "2", true},
		{"####5", "5", true}, // lm-eval splits on "####" without the space
		{"no marker", "", false},
		{"a\n#### ", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := FinalAnswer(tt.answer)
		assert.Equal(t, tt.want, got, tt.answer)
		assert.Equal(t, tt.ok, ok, tt.answer)
	}
}
