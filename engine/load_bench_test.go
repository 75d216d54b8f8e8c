package engine

import (
	"path/filepath"
	"testing"
)

// BenchmarkLoad measures opening a builder checkpoint of about 15 MB in BF16 (mmap,
// header parsing and validation; the weights are not read), as one file and as
// 4 shards.
func BenchmarkLoad(b *testing.B) {
	spec := TestModelSpec{Config: Config{HiddenSize: 256, Intermediate: 688, Layers: 8, Heads: 8, KVHeads: 4,
		VocabSize: 8192, TiedEmbedding: true, DType: BF16}, Seed: 1}
	for _, shards := range []int{1, 4} {
		dir := filepath.Join(b.TempDir(), "m")
		spec.Shards = shards
		if err := BuildTestModel(dir, spec); err != nil {
			b.Fatal(err)
		}
		name := "single"
		if shards > 1 {
			name = "sharded"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				m, err := Load(dir)
				if err != nil {
					b.Fatal(err)
				}
				m.Close()
			}
		})
	}
}

// BenchmarkBuildTestModel measures writing the same checkpoint (the random draws
// dominate); b.SetBytes makes the figure a write throughput.
func BenchmarkBuildTestModel(b *testing.B) {
	spec := TestModelSpec{Config: Config{HiddenSize: 256, Intermediate: 688, Layers: 8, Heads: 8, KVHeads: 4,
		VocabSize: 8192, TiedEmbedding: true, DType: BF16}, Seed: 1}
	dir := b.TempDir()
	cfg, _, err := spec.resolve()
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, s := range cfg.ExpectedTensors() {
		n := int64(2)
		for _, d := range s.Shape {
			n *= int64(d)
		}
		size += n
	}
	b.SetBytes(size)
	for b.Loop() {
		if err := BuildTestModel(filepath.Join(dir, "m"), spec); err != nil {
			b.Fatal(err)
		}
	}
}
