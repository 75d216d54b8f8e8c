package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/engine"
)

// resolveModelFlag resolves the --model flag of the one-model tools
// (forward, generate, tokenize) in place: required, then resolveModel with
// the hub caches and no revision.
func resolveModelFlag(model *string) error {
	if *model == "" {
		return fmt.Errorf("%w: --model is required", errUsage)
	}
	resolved, err := resolveModel("model", *model, "", engine.HFCacheDirs())
	if err != nil {
		return err
	}
	*model = resolved
	return nil
}

// resolveModel turns a --model value as users write it into a checkpoint path:
// an existing file or directory is used as is; a hub repo id ("org/name", as in
// lm-eval's pretrained= and vLLM's --model) is the newest complete snapshot in
// the Hugging Face hub caches (engine.HFCacheDirs), or the one revision names.
// Nothing is downloaded; a miss says where it looked. Any other name is returned
// as given, for the loader to report.
func resolveModel(flagName, name, revision string, caches []string) (string, error) {
	if name == "" {
		return "", nil
	}
	if _, err := os.Stat(name); err == nil {
		if revision != "" {
			return "", fmt.Errorf("%w: --revision %s: --%s %s is a local path, not a hub repo id", errUsage, revision, flagName, name)
		}
		return name, nil
	}
	if engine.HFRepoCacheDir("", name) == "" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") {
		return name, nil // a local path; loading it says what is wrong
	}
	if dir, ok := engine.FindHFRevision(caches, name, revision); ok {
		return dir, nil
	}
	what := "a complete snapshot"
	if revision != "" {
		what = "revision " + revision
	}
	looked := make([]string, len(caches))
	for i, c := range caches {
		looked[i] = engine.HFRepoCacheDir(c, name)
	}
	return "", fmt.Errorf("%w: --%s %s: not a local path, and no %s (config.json, tokenizer.json, *.safetensors) in the Hugging Face cache; looked in %s (set HF_HUB_CACHE or HF_HOME, or pass the checkpoint directory; nothing is downloaded)",
		errUsage, flagName, name, what, strings.Join(looked, ", "))
}

// checkDataPath refuses a directory where a data file or glob is wanted, with
// the glob that would read it (its own .parquet/.jsonl/.csv files, or those one
// level down, as in a Hugging Face dataset's data/ or main/ folder).
func checkDataPath(flagName, path string) error {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return nil // a file or a glob; loading it says what is wrong
	}
	for _, pattern := range []string{"*", filepath.Join("*", "*")} {
		for _, ext := range []string{".parquet", ".jsonl", ".csv"} {
			glob := filepath.Join(path, pattern+ext)
			if m, _ := filepath.Glob(glob); len(m) > 0 {
				return fmt.Errorf("%w: --%s %s is a directory; give a file or a glob, e.g. --%s '%s' (%d files)", errUsage, flagName, path, flagName, glob, len(m))
			}
		}
	}
	return fmt.Errorf("%w: --%s %s is a directory with no .parquet, .jsonl or .csv files; give a file or a glob such as '%s'", errUsage, flagName, path, filepath.Join(path, "*.parquet"))
}
