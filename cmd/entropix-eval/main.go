// Command entropix-eval is the harness's CLI. Each subcommand lives in its own file
// and registers itself in init, so the CLI holds argument handling only; the work is
// done by the packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand: run parses its own flags from args.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("duplicate command " + c.name) // programming error, caught at start-up
	}
	commands[c.name] = c
}

// errUsage marks an error caused by the command line; main exits 2 for it.
var errUsage = errors.New("usage")

// Exit codes a scheduler (Slurm, a Kubernetes Indexed Job) can act on: done (an
// empty shard is done), failed (retry or inspect), usage (fix the command line;
// retrying cannot help).
const (
	exitDone   = 0
	exitFailed = 1
	exitUsage  = 2
)

// parseFlags parses a command's flags; a bad flag or value is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return nil
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
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		os.Exit(exitUsage)
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "entropix-eval: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(exitUsage)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := c.run(ctx, os.Args[2:])
	stop()
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(os.Stderr, "entropix-eval %s: %v\n", c.name, err)
	}
	os.Exit(exitCode(err))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: entropix-eval <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nrun 'entropix-eval <command> -h' for a command's flags")
}
