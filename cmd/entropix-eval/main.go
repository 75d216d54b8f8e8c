// Command entropix-eval is the harness's CLI. Each subcommand lives in its own file
// and registers itself in init, so the CLI holds argument handling only; the work is
// done by the packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/entropix-eval/entropix-eval/eval"
	usageclass "github.com/entropix-eval/entropix-eval/internal/usage"
)

// command is one subcommand: run parses its own flags from args (through
// parseFlags, which gives every command the same help, errors and argument order).
type command struct {
	name    string
	summary string
	// examples are complete command lines, printed under the command's help.
	examples []string
	run      func(ctx context.Context, args []string) error
}

// helpOut is where help goes: stdout, so it can be paged and grepped.
var helpOut io.Writer = os.Stdout

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name) // programming error, caught at start-up
	}
	commands[c.name] = c
}

// errUsage marks an error retrying cannot fix (the command line, a sweep,
// task or data file, a model directory); main exits 2 for it. Packages
// classify their own errors with internal/usage, the one definition.
var errUsage = usageclass.Err

// Exit codes a scheduler (Slurm, a Kubernetes Indexed Job) can act on: done (an
// empty shard is done), failed (retry or inspect), usage (fix the command line;
// retrying cannot help).
const (
	exitDone   = 0
	exitFailed = 1
	exitUsage  = 2
)

// parseFlags parses a command's flags, wherever they stand among its positional
// arguments ("report RUN --baseline X"); a bad flag or value is a usage error of
// one line. -h prints the command's help and examples on stdout (exit 0).
func parseFlags(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package would print the whole usage on any error
	defer fs.SetOutput(out)
	err := fs.Parse(flagsFirst(fs, args))
	if errors.Is(err, flag.ErrHelp) {
		printHelp(fs)
		return err
	}
	if err != nil {
		name, _, _ := strings.Cut(fs.Name(), " ")
		return fmt.Errorf("%w: %w ('entropix-eval %s -h' lists the flags)", errUsage, err, name)
	}
	return nil
}

// flagsFirst moves args' flags (with their values) before its positional
// arguments, keeping each group's order, so the flag package, which stops at
// the first positional argument, sees them all.
func flagsFirst(fs *flag.FlagSet, args []string) []string {
	flags, positional := splitFlags(fs, args)
	if len(positional) == 0 {
		return flags
	}
	return append(append(flags, "--"), positional...)
}

// splitFlags separates args into flags (with their values) and positional
// arguments; "--" ends the flags, as in the flag package.
func splitFlags(fs *flag.FlagSet, args []string) (flags, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, positional
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// printHelp prints a command's usage (its FlagSet's Usage: synopsis, notes,
// flags) and then its examples from the command table.
func printHelp(fs *flag.FlagSet) {
	fs.SetOutput(helpOut)
	fs.Usage()
	name, _, _ := strings.Cut(fs.Name(), " ")
	printExamples(name, helpOut)
}

// printExamples prints the examples of command name from the command table.
func printExamples(name string, w io.Writer) {
	if c, ok := commands[name]; ok && len(c.examples) > 0 {
		fmt.Fprintln(w, "\nexamples:")
		for _, e := range c.examples {
			fmt.Fprintln(w, "  "+e)
		}
	}
}

// exitCode maps a command's result to the process's exit status.
func exitCode(err error) int {
	// A command may choose its own status (compare: 1 for a drop, 2 for an error).
	var coded interface{ ExitCode() int }
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitDone
	case errors.As(err, &coded):
		return coded.ExitCode()
	case errors.Is(err, errUsage):
		return exitUsage
	}
	return exitFailed
}

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	os.Exit(runMain(os.Args[1:], os.Stderr))
}

// runMain runs the command args name and returns the exit status.
func runMain(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(helpOut)
		return exitDone
	case "-version", "--version", "version":
		fmt.Fprintln(helpOut, "entropix-eval", version())
		return exitDone
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "entropix-eval: unknown command %q ('entropix-eval -h' lists the commands)\n", args[0])
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := c.run(ctx, args[1:])
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stderr, "entropix-eval %s: %v\n", c.name, err)
	}
	return exitCode(err)
}

// version is the module version and the code revision the binary was built
// from, as run manifests record it (Go's VCS stamp, else the Makefile's).
func version() string {
	ci := eval.ReadCodeInfo()
	v := ci.Version
	if v == "" {
		v = "(unknown)"
	}
	if ci.Revision != "" {
		v += " " + ci.Revision
		if ci.Modified {
			v += " (modified)"
		}
	} else {
		v += " (no revision stamp: build with 'make build')"
	}
	return v + " " + ci.GoVersion
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: entropix-eval <command> [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nrun 'entropix-eval <command> -h' for a command's flags and examples; 'entropix-eval --version' for the build")
}
