package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// addShards loads a sharded checkpoint: the index maps each tensor to a shard file in
// the same directory. Every shard must exist, hold exactly the tensors the index
// gives it, and no tensor may be in two shards.
func (m *Model) addShards(indexPath string, from map[string]string) error {
	weightMap, err := readIndex(indexPath)
	if err != nil {
		return err
	}
	var files []string
	seen := map[string]bool{}
	for _, f := range weightMap {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	sort.Strings(files)
	dir := filepath.Dir(indexPath)
	for _, f := range files {
		p := filepath.Join(dir, f)
		if !fileExists(p) {
			return fmt.Errorf("index %s: shard %s does not exist", indexPath, f)
		}
		if err := m.addSafetensors(p, from, weightMap); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(weightMap))
	for name := range weightMap {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := m.Tensors[name]; !ok {
			return fmt.Errorf("index %s: tensor %q is mapped to %s, which does not hold it", indexPath, name, weightMap[name])
		}
	}
	return nil
}

// readIndex parses model.safetensors.index.json into tensor name → shard file name.
func readIndex(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	var idx struct {
		WeightMap json.RawMessage `json:"weight_map"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("index %s: invalid JSON: %w", path, err)
	}
	if idx.WeightMap == nil || string(idx.WeightMap) == "null" {
		return nil, fmt.Errorf("index %s: field %q missing", path, "weight_map")
	}
	fields, err := decodeObjectNoDuplicates(idx.WeightMap)
	if err != nil {
		return nil, fmt.Errorf("index %s: field %q: %w", path, "weight_map", err)
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("index %s: field %q is empty", path, "weight_map")
	}
	out := make(map[string]string, len(fields))
	for _, f := range fields {
		var file string
		if err := json.Unmarshal(f.value, &file); err != nil {
			return nil, fmt.Errorf("index %s: weight_map[%q]: want a file name: %w", path, f.key, err)
		}
		// Shards live next to the index; a path could point anywhere on disk.
		if file == "" || file != filepath.Base(file) || strings.ContainsAny(file, `/\`) || file == "." || file == ".." {
			return nil, fmt.Errorf("index %s: weight_map[%q]: %q is not a file name in the model directory", path, f.key, file)
		}
		out[f.key] = file
	}
	return out, nil
}
