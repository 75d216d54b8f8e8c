// Package hfcache knows where Hugging Face keeps its caches and how a cached
// repo's snapshots are ordered, for both the model cache (engine) and the
// dataset caches (datasets).
package hfcache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Dirs lists the cache directories named sub ("hub", "datasets") that may
// exist on this machine, most specific first: the environment variables given
// (each naming the directory itself), $HF_HOME/sub,
// $XDG_CACHE_HOME/huggingface/sub and ~/.cache/huggingface/sub. The libraries
// read only the first one set; all are listed because data cached under
// another setting is still usable. Nothing is checked for existence.
func Dirs(sub string, envVars ...string) []string {
	var dirs []string
	add := func(d string) {
		if d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, v := range envVars {
		add(os.Getenv(v))
	}
	if h := os.Getenv("HF_HOME"); h != "" {
		add(filepath.Join(h, sub))
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		add(filepath.Join(x, "huggingface", sub))
	}
	if home, err := os.UserHomeDir(); err == nil {
		add(filepath.Join(home, ".cache", "huggingface", sub))
	}
	return dirs
}

// Snapshots lists a cached repo's snapshot directories (repo is e.g.
// .../models--org--name): the revision refs/main names first, then the others
// newest first (ties in directory-name order).
func Snapshots(repo string) []string {
	var out []string
	if ref, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err == nil {
		dir := filepath.Join(repo, "snapshots", strings.TrimSpace(string(ref)))
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			out = append(out, dir)
		}
	}
	entries, err := os.ReadDir(filepath.Join(repo, "snapshots"))
	if err != nil {
		return out
	}
	type snap struct {
		dir string
		t   time.Time
	}
	var rest []snap
	for _, e := range entries {
		dir := filepath.Join(repo, "snapshots", e.Name())
		if slices.Contains(out, dir) {
			continue
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			rest = append(rest, snap{dir, st.ModTime()})
		}
	}
	slices.SortStableFunc(rest, func(a, b snap) int { return b.t.Compare(a.t) })
	for _, r := range rest {
		out = append(out, r.dir)
	}
	return out
}
