// Package usage classifies errors that retrying cannot fix: a bad flag, sweep
// file, sampler spec, task file, data file or model directory, a refused
// output directory. The CLI exits 2 for them and 1 for the rest, which a
// Slurm requeue or a Kubernetes Job retries. Each such error is classified
// once, where it is made: a sentinel made with New, or an error wrapped with
// Wrap or made with Errorf; errors.Is(err, Err) then holds however it is
// wrapped on the way up.
package usage

import (
	"errors"
	"fmt"
)

// Err is the class.
var Err = errors.New("usage")

// New is a sentinel error of the class, with text as its message.
func New(text string) error { return &classed{err: errors.New(text)} }

// Wrap classifies err (nil stays nil); its message is unchanged.
func Wrap(err error) error {
	if err == nil || errors.Is(err, Err) {
		return err
	}
	return &classed{err: err}
}

// Errorf is fmt.Errorf, classified.
func Errorf(format string, args ...any) error { return Wrap(fmt.Errorf(format, args...)) }

type classed struct{ err error }

func (c *classed) Error() string        { return c.err.Error() }
func (c *classed) Unwrap() error        { return c.err }
func (c *classed) Is(target error) bool { return target == Err }
