package cudasim

import (
	"os"
	"path/filepath"
)

// CacheDir is where Build keeps its libraries: $ENTROPIX_CUDASIM_CACHE, else
// entropix-eval-cudasim under the user cache directory (beside Go's build cache).
func CacheDir() string {
	if d := os.Getenv("ENTROPIX_CUDASIM_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "entropix-eval-cudasim")
}
