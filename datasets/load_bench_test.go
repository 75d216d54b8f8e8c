package datasets

import (
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// One op loads the whole GSM8K test split (1319 rows). Compare the Parquet
// figures with the JSONL one, taken in the same run.
func benchmarkLoad(b *testing.B, rel string) {
	path := sharedtest.Path(b, rel)
	b.ReportAllocs()
	for b.Loop() {
		ds, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(ds.Problems) != 1319 {
			b.Fatalf("%d rows", len(ds.Problems))
		}
	}
}

func BenchmarkLoadTestParquetSnappy(b *testing.B) {
	benchmarkLoad(b, "data/gsm8k/main/test-00000-of-00001.parquet")
}

func BenchmarkLoadTestParquetZstdRowGroups(b *testing.B) {
	benchmarkLoad(b, "data/gsm8k/variants/test-zstd-rg256.parquet")
}

func BenchmarkLoadTestJSONL(b *testing.B) { benchmarkLoad(b, "data/gsm8k/test.jsonl") }

// BenchmarkLoadDocsParquet loads the same split as task docs: the peer of
// BenchmarkLoadTestParquetSnappy, which reads the rows through the same
// reader (parquet-go's row reconstruction) and adds the GSM8K checks.
func BenchmarkLoadDocsParquet(b *testing.B) {
	path := sharedtest.Path(b, "data/gsm8k/main/test-00000-of-00001.parquet")
	b.ReportAllocs()
	for b.Loop() {
		ds, err := LoadDocs(path)
		if err != nil {
			b.Fatal(err)
		}
		if len(ds.Problems) != 1319 {
			b.Fatalf("%d rows", len(ds.Problems))
		}
	}
}

// BenchmarkBuildPrompts1319 renders gsm8k_cot's 8-shot prompt (Jinja) for the
// whole test split.
func BenchmarkBuildPrompts1319(b *testing.B) {
	ds, err := LoadDocs(sharedtest.Path(b, "data/gsm8k/main/test-00000-of-00001.parquet"))
	if err != nil {
		b.Fatal(err)
	}
	task, err := LookupTask("gsm8k_cot")
	if err != nil {
		b.Fatal(err)
	}
	td, err := LoadTaskData(task, DataSource{Files: map[string]string{"test": ds.Files[0].Path}}, task.NumFewshot)
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewPrompter(task, td.Shots, PromptOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range ds.Problems {
			if _, err := p.Build(d); err != nil {
				b.Fatal(err)
			}
		}
	}
}
