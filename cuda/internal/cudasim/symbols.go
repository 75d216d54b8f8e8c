package cudasim

import (
	"debug/elf"
	"fmt"
	"regexp"
	"strings"
)

// sharedVar is one __shared__ variable of a built library: a thread_local of the kernel
// code, at Offset in the module's TLS block.
type sharedVar struct {
	Name         string
	Offset, Size uint64
}

// sharedVariables lists the library's __shared__ variables from its symbol table (the
// TLS symbols, less the runtime's own), so the runtime can bound every shared access
// by the variable it falls in.
func sharedVariables(lib string) ([]sharedVar, error) {
	f, err := elf.Open(lib)
	if err != nil {
		return nil, fmt.Errorf("cudasim: %w", err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("cudasim: %s: symbol table: %w", lib, err)
	}
	var vars []sharedVar
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_TLS || s.Size == 0 || strings.Contains(s.Name, "7cudasim") {
			continue
		}
		vars = append(vars, sharedVar{Name: demangleStatic(s.Name), Offset: s.Value, Size: s.Size})
	}
	return vars, nil
}

var localStaticRE = regexp.MustCompile(`^_ZZ(\d+)(\w*?)E(\d+)(\w+)$`)

// demangleStatic shortens the Itanium name of a function's static variable
// (_ZZ11block_sum_ffE3buf) to function::variable; other names stay as they are.
func demangleStatic(name string) string {
	m := localStaticRE.FindStringSubmatch(name)
	if m == nil {
		return name
	}
	var n int
	if _, err := fmt.Sscan(m[1], &n); err != nil || n > len(m[2]) {
		return name
	}
	return m[2][:n] + "::" + m[4]
}
