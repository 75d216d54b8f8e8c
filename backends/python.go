package backends

import (
	"context"
	"log/slog"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval/pytask"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// Python starts the interpreter python names (a path or a name on PATH;
// empty: pyhooks' default) behind a pyhooks bridge with its default bounds,
// serving a task's hooks through pytask.
func (builtin) Python(ctx context.Context, python string) (datasets.PythonRunner, string, func(), error) {
	b := pyhooks.New(pyhooks.Options{Python: python})
	in, err := b.Interpreter(ctx)
	if err != nil {
		b.Close()
		return nil, "", nil, err
	}
	stop := func() {
		if err := b.Close(); err != nil {
			slog.Warn("stop the Python hooks' interpreter", "err", err)
		}
	}
	return pytask.NewRunner(ctx, b), in.Executable + " (Python " + in.Version + ")", stop, nil
}
