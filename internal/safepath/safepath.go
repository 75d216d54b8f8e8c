// Package safepath checks the names that become paths inside a run directory
// (task and group member names, sampler labels, model names) so that no name,
// however it was written in a task file or on the command line, places a file
// outside the directory it was meant for.
package safepath

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// MaxName bounds one name: most file systems refuse longer components.
const MaxName = 255

// ErrUnsafe marks a name or path that would leave its directory.
var ErrUnsafe = usage.New("unsafe name for a file or folder")

// Name checks that name can be one path component as it is: not empty, not
// "." or "..", no path separator, NUL or other control character, at most
// MaxName bytes. kind says what the name is ("task", "group member", ...).
func Name(kind, name string) error {
	why := ""
	switch {
	case name == "":
		why = "it is empty"
	case name == "." || name == "..":
		why = "it names a folder itself"
	case len(name) > MaxName:
		why = fmt.Sprintf("it is %d bytes long, more than %d", len(name), MaxName)
	case strings.ContainsAny(name, `/\`):
		why = "it holds a path separator"
	case strings.ContainsFunc(name, unicode.IsControl):
		why = "it holds a control character"
	}
	if why != "" {
		return fmt.Errorf("%s name %q becomes a file or folder name, and %s: %w", kind, name, why, ErrUnsafe)
	}
	return nil
}

// Join is filepath.Join(root, elems...) that refuses a result outside root.
func Join(root string, elems ...string) (string, error) {
	p := filepath.Join(append([]string{root}, elems...)...)
	rel, err := filepath.Rel(filepath.Clean(root), p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s leaves the folder %s: %w", filepath.Join(elems...), root, ErrUnsafe)
	}
	return p, nil
}
