package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/hfcache"
)

// HFCacheDirs lists the Hugging Face hub cache directories that may exist on this
// machine, most specific first: $HF_HUB_CACHE (and the older
// $HUGGINGFACE_HUB_CACHE), $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub and
// ~/.cache/huggingface/hub. huggingface_hub reads only the first one set; all are
// listed because a checkpoint downloaded under another setting is still usable.
// Nothing is checked for existence here.
func HFCacheDirs() []string {
	return hfcache.Dirs("hub", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE")
}

// FindHFSnapshot returns the directory of a complete snapshot of the hub model
// repo ("org/name") in the first cache directory that has one. In a cache, a repo
// lives in models--org--name/, its revisions in snapshots/<commit>/ and the commit
// of main in refs/main; that revision is preferred, else the most recently
// modified complete snapshot. A snapshot is complete when CompleteCheckpoint says
// so, which skips interrupted downloads.
func FindHFSnapshot(cacheDirs []string, repo string) (string, bool) {
	return FindHFRevision(cacheDirs, repo, "")
}

// HFRepoCacheDir is where a cache directory keeps the hub model repo "org/name"
// (models--org--name), or "" when repo is not of that form.
func HFRepoCacheDir(cache, repo string) string {
	org, name, ok := strings.Cut(repo, "/")
	if !ok || org == "" || name == "" || strings.Contains(name, "/") {
		return ""
	}
	return filepath.Join(cache, "models--"+org+"--"+name)
}

// FindHFRevision is FindHFSnapshot for one revision, as huggingface_hub names
// it: a branch or tag (refs/<revision> holds its commit) or a commit hash (a
// snapshots/<commit> directory). An empty revision is FindHFSnapshot's choice.
// Only a complete snapshot is returned; nothing is downloaded.
func FindHFRevision(cacheDirs []string, repo, revision string) (string, bool) {
	if revision != "" {
		if strings.Contains(revision, "..") || strings.HasPrefix(revision, "/") {
			return "", false // a ref name, never a path out of the cache
		}
		for _, cache := range cacheDirs {
			root := HFRepoCacheDir(cache, repo)
			if root == "" {
				return "", false
			}
			commit := revision
			if ref, err := os.ReadFile(filepath.Join(root, "refs", filepath.FromSlash(revision))); err == nil {
				commit = strings.TrimSpace(string(ref))
			}
			if commit == filepath.Base(commit) && commit != ".." {
				if dir := filepath.Join(root, "snapshots", commit); CompleteCheckpoint(dir) {
					return dir, true
				}
			}
		}
		return "", false
	}
	for _, cache := range cacheDirs {
		root := HFRepoCacheDir(cache, repo)
		if root == "" {
			return "", false
		}
		for _, dir := range hfcache.Snapshots(root) {
			if CompleteCheckpoint(dir) {
				return dir, true
			}
		}
	}
	return "", false
}

// CompleteCheckpoint reports whether dir holds a usable Hugging Face checkpoint:
// config.json, tokenizer.json and its safetensors weights — every shard the
// index names, or at least one *.safetensors file without an index. Files are
// stat'ed through their links, so a snapshot whose blob links dangle (an
// interrupted download) is not complete.
func CompleteCheckpoint(dir string) bool {
	isFile := func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && st.Mode().IsRegular()
	}
	if !isFile(filepath.Join(dir, ConfigFile)) || !isFile(filepath.Join(dir, "tokenizer.json")) {
		return false
	}
	if b, err := os.ReadFile(filepath.Join(dir, "model.safetensors.index.json")); err == nil {
		var idx struct {
			WeightMap map[string]string `json:"weight_map"`
		}
		if json.Unmarshal(b, &idx) != nil || len(idx.WeightMap) == 0 {
			return false
		}
		for _, shard := range idx.WeightMap {
			if shard != filepath.Base(shard) || !isFile(filepath.Join(dir, shard)) {
				return false
			}
		}
		return true
	}
	weights, _ := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if len(weights) == 0 {
		return false
	}
	for _, w := range weights {
		if !isFile(w) {
			return false
		}
	}
	return true
}
