package engine

import (
	"fmt"
	"path/filepath"
	"sort"
)

// writeShards writes tensors into model.safetensors, or, for shards > 1, into that
// many files of roughly equal size plus model.safetensors.index.json.
func writeShards(dir string, tensors []tensorSource, shards int) error {
	meta := map[string]string{"format": "pt"}
	if shards <= 1 {
		return writeSafetensors(filepath.Join(dir, SafetensorsFile), tensors, meta)
	}
	if shards > len(tensors) {
		return fmt.Errorf("%d shards for %d tensors: some would be empty", shards, len(tensors))
	}
	sort.Slice(tensors, func(i, j int) bool { return tensors[i].Name < tensors[j].Name })
	var total int64
	for i := range tensors {
		total += tensors[i].bytes()
	}
	weightMap := map[string]string{}
	start, done := 0, int64(0)
	for s := 0; s < shards; s++ {
		// Shard s takes tensors until it reaches its share of the bytes, leaving at
		// least one tensor for each shard after it; the last takes the rest.
		target := total * int64(s+1) / int64(shards)
		last := len(tensors) - (shards - s - 1)
		end := start
		for end < last && (end == start || done < target) {
			done += tensors[end].bytes()
			end++
		}
		name := fmt.Sprintf("model-%05d-of-%05d.safetensors", s+1, shards)
		for _, t := range tensors[start:end] {
			weightMap[t.Name] = name
		}
		if err := writeSafetensors(filepath.Join(dir, name), tensors[start:end], meta); err != nil {
			return err
		}
		start = end
	}
	index := map[string]any{"metadata": map[string]any{"total_size": total}, "weight_map": weightMap}
	return writeJSONFile(filepath.Join(dir, IndexFile), index)
}
