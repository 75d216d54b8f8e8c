package datasets

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"
)

// maxCardBytes bounds the dataset card (README.md) read for its configs.
const maxCardBytes = 1 << 20

// cardDataFiles reads the split → file patterns of one config from a hub
// repo's dataset card (README.md YAML front matter, `configs:`), the way the
// datasets library's MetadataConfigs and sanitize_patterns read them: a
// config's data_files is a pattern, a list of patterns (both the "train"
// split) or a list of {split, path}. An empty config name picks the default
// config (the only one, one named "default", or one with default: true).
// Patterns are relative to the repo root. It returns nil, nil when the repo
// has no card or the card no such config.
func cardDataFiles(repo, config string) (map[string][]string, error) {
	path := filepath.Join(repo, "README.md")
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCardBytes))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	front, ok := frontMatter(data)
	if !ok {
		return nil, nil
	}
	var card struct {
		Configs []map[string]any `yaml:"configs"`
	}
	if err := yaml.Unmarshal(front, &card); err != nil {
		return nil, fmt.Errorf("%s: YAML front matter: %w", path, err)
	}
	var chosen map[string]any
	for _, c := range card.Configs {
		name, _ := c["config_name"].(string)
		if name == "" {
			name = "default"
		}
		isDefault, _ := c["default"].(bool)
		if name == config || (config == "" && (len(card.Configs) == 1 || name == "default" || isDefault)) {
			chosen = c
			break
		}
	}
	if chosen == nil {
		return nil, nil
	}
	out, err := splitPatterns(chosen["data_files"])
	if err != nil {
		return nil, fmt.Errorf("%s: configs %v data_files: %w", path, chosen["config_name"], err)
	}
	return out, nil
}

// frontMatter is the YAML between a leading "---" line and the next one.
func frontMatter(data []byte) ([]byte, bool) {
	data = bytes.TrimPrefix(data, utf8BOM)
	rest, ok := bytes.CutPrefix(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("---\n"))
	if !ok {
		return nil, false
	}
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return nil, false
	}
	return rest[:end+1], true
}

// splitPatterns is sanitize_patterns for a card's data_files value.
func splitPatterns(v any) (map[string][]string, error) {
	strs := func(v any) ([]string, error) {
		switch x := v.(type) {
		case string:
			return []string{x}, nil
		case []any:
			var out []string
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					return nil, fmt.Errorf("want file patterns, got %v", e)
				}
				out = append(out, s)
			}
			return out, nil
		}
		return nil, fmt.Errorf("want a pattern or a list, got %T", v)
	}
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return map[string][]string{"train": {x}}, nil
	case []any:
		if !slices.ContainsFunc(x, func(e any) bool { _, ok := e.(map[string]any); return ok }) {
			p, err := strs(x)
			return map[string][]string{"train": p}, err
		}
		out := map[string][]string{}
		for _, e := range x {
			m, ok := e.(map[string]any)
			split, _ := m["split"].(string)
			if !ok || len(m) != 2 || split == "" {
				return nil, fmt.Errorf("want {split, path} entries, got %v", e)
			}
			if _, dup := out[split]; dup {
				return nil, fmt.Errorf("split %s listed twice", split)
			}
			p, err := strs(m["path"])
			if err != nil {
				return nil, fmt.Errorf("split %s: %w", split, err)
			}
			out[split] = p
		}
		return out, nil
	case map[string]any:
		out := map[string][]string{}
		for split, p := range x {
			ps, err := strs(p)
			if err != nil {
				return nil, fmt.Errorf("split %s: %w", split, err)
			}
			out[split] = ps
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a pattern, a list or {split, path} entries, got %T", v)
}

// dataFilesIn lists the data files at a repo's top two levels, for a miss
// message: files stored under a name no layout matched.
func dataFilesIn(repo string) []string {
	var out []string
	for _, pat := range []string{"*", filepath.Join("*", "*")} {
		m, _ := filepath.Glob(filepath.Join(repo, pat))
		for _, f := range m {
			if formatOf(f) != "" {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}
