package cuda

import "errors"

// ErrNotBuilt is New's error in a binary built without the `cuda` tag.
var ErrNotBuilt = errors.New("cuda backend not built in: rebuild with `go build -tags cuda` on a machine with the CUDA driver")
