package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// printFlags lists a command's flags as its synopsis spells them (--name), each
// with its value's kind and its usage text verbatim. It replaces the flag
// package's PrintDefaults, whose back-quote rule takes the first `quoted` words of
// a usage for the value's name ("-task entropix-eval tasks") and which prints a
// second "(default …)" after usages that already state their default.
func printFlags(fs *flag.FlagSet, w io.Writer) {
	fs.VisitAll(func(f *flag.Flag) {
		line := "  --" + f.Name
		if kind := flagKind(f); kind != "" {
			line += " " + kind
		}
		usage := f.Usage
		if !strings.Contains(usage, "default") && !isZeroDefault(f) {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// flagKind names what a flag takes: nothing for a boolean, else its Go kind
// (int, string, float) or "value" for a flag parsed by a function.
func flagKind(f *flag.Flag) string {
	if isBoolFlag(f) {
		return ""
	}
	plain := *f
	plain.Usage = "" // no back-quoted name to pick up
	kind, _ := flag.UnquoteUsage(&plain)
	if kind == "float64" {
		kind = "float"
	}
	return kind
}

// isZeroDefault reports whether a flag's default is its type's zero value, which
// help does not print.
func isZeroDefault(f *flag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "[]", "<nil>":
		return true
	}
	return false
}
